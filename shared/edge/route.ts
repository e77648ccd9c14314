import type * as z from 'zod/mini';
import type { Role } from '#shared/core/vocabulary.ts';

// A route is declared once, in its area's file under routes/: method, path, handler module, auth,
// role, table access, schemas, success status and documentation. The CDK stack makes one function
// and one API route from it, the local runtime serves it, the HTTP kit enforces it and the OpenAPI
// document is generated from it. Declarations import no handler code.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** widget: X-Widget-Key; jwt: the HTTP API JWT authorizer; none: public. */
export type AuthKind = 'widget' | 'jwt' | 'none';

type Schema = z.ZodMiniType;

export interface Route<
  P extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
> {
  method: Method;
  /** API Gateway path template, `{name}` for a path parameter. */
  path: string;
  /** Handler module, relative to `functions/`, without extension; it exports `handler`. */
  handler: string;
  auth: AuthKind;
  /** Minimum role for jwt routes; `null` where any valid token will do (onboarding, /auth/me). */
  role: Role | null;
  /** What the function may do to the table: `read` grants only reads, `write` reads and writes. */
  table: 'read' | 'write' | 'none';
  /** The function encrypts or decrypts integration credentials. */
  kms?: boolean;
  /** The function sends to the delivery queue. */
  queue?: boolean;
  /**
   * The function embeds customers' messages with the sentence encoder: its bundle carries the
   * encoder's runtime and weights and its memory fits them. Other functions never load it.
   */
  encoder?: boolean;
  /** The function presigns links to the mail bucket's objects (email attachments and originals). */
  mailLinks?: boolean;
  /** The function presigns links to tenant exports (`exports/`). */
  exportLinks?: boolean;
  /** The function queues tenant exports (the export queue, shared/edge/triggers.ts EXPORT_QUEUE). */
  exportQueue?: boolean;
  /** The function reads SES's verification of the tenants' sending identities (GetEmailIdentity). */
  sesIdentities?: boolean;
  /** The function deletes a customer's stored mail (originals and attachments) from the mail bucket. */
  eraseObjects?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** The success body; absent for 204. */
  response?: Schema;
  status: 200 | 201 | 202 | 204;
  /**
   * A second success status the handler may answer (`withStatus`), and when; with the same body,
   * or the one `response` names.
   */
  alternate?: { status: 200 | 201; description: string; response?: Schema };
  /** The body may be left out (read as `{}`); one that is sent is parsed and checked as usual. */
  bodyOptional?: boolean;
  /** Honours the `Idempotency-Key` header. */
  idempotent?: boolean;
  /** The 409 codes this route may answer (documentation). */
  conflicts?: string[];
  /** 429 RATE_LIMITED beyond a per-conversation limit (documentation). */
  rateLimited?: boolean;
  summary: string;
  description?: string;
}

type Decl<P extends Schema | undefined, B extends Schema | undefined, Q extends Schema | undefined> = Omit<
  Route<P, B, Q>,
  'method' | 'path' | 'auth' | 'role' | 'handler'
>;

const CHAT = '/api/v1/chat';
const ADMIN = '/api/v1/admin';

export const declareChat = <
  P extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
>(
  method: Method,
  path: string,
  handler: string,
  d: Decl<P, B, Q>,
): Route<P, B, Q> => ({ method, path: CHAT + path, handler: `chat/${handler}`, auth: 'widget', role: null, ...d });

export const declareAdmin = <
  P extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
>(
  method: Method,
  path: string,
  handler: string,
  role: Role | null,
  d: Decl<P, B, Q>,
): Route<P, B, Q> => ({ method, path: ADMIN + path, handler: `admin/${handler}`, auth: 'jwt', role, ...d });

export const declarePublic = <
  P extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
>(
  method: Method,
  path: string,
  handler: string,
  d: Decl<P, B, Q>,
): Route<P, B, Q> => ({ method, path, handler: `public/${handler}`, auth: 'none', role: null, ...d });

/** API Gateway's route key, e.g. `PATCH /api/v1/admin/tickets/{id}`. */
export const routeKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/** Request body limits in bytes; the limit itself is accepted. */
export const BODY_LIMIT = { widget: 16 * 1024, jwt: 256 * 1024, none: 0 } as const satisfies Record<AuthKind, number>;
