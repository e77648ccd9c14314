import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { BODY_LIMIT, findRoute, roleAtLeast, type Route } from '#shared/routes.ts';
import {
  AppError, Conflict, Forbidden, InvalidJson, NotOnboarded, PayloadTooLarge, UnsupportedMediaType, ValidationError,
  type FieldError,
} from './errors.ts';
import { logger } from './log.ts';
import { problem, json, type Reply } from './response.ts';
import { asUnavailable } from '#shared/data/client.ts';
import { TxConditionFailed, TxConflict } from '#shared/data/tx.ts';
import { memberships, type Membership } from '#shared/data/memberships.ts';
import { widgetTenant, type WidgetTenant } from '#shared/domain/widget-auth.ts';
import { idempotency, type IdempotencyScope } from '#shared/data/idempotency.ts';

export type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
export type Result = APIGatewayProxyStructuredResultV2;
export type Handler = (event: Event, context: Context) => Promise<Result>;

export interface Spec<P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType> {
  params?: P;
  body?: B;
  query?: Q;
  /** Honour the `Idempotency-Key` header (CONTRACT section 2). */
  idempotent?: boolean;
}

interface Base<P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType> {
  params: z.output<P>;
  body: z.output<B>;
  query: z.output<Q>;
  requestId: string;
  headers: Record<string, string | undefined>;
}

export interface User { sub: string; email: string | null }
export interface ChatContext<P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType> extends Base<P, B, Q> {
  tenant: WidgetTenant;
}
export interface AdminContext<P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType> extends Base<P, B, Q> {
  user: User;
  /** The caller's membership; present on every route with a minimum role. */
  membership: Membership;
}
/** /auth/me and /auth/onboard: any valid token, with or without a tenant. */
export interface UserContext<P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType> extends Base<P, B, Q> {
  user: User;
}

const None = z.undefined();
type NoneT = typeof None;

const fieldErrors = (where: 'body' | 'query' | 'path', err: z.core.$ZodError): FieldError[] =>
  err.issues.map((i) => {
    const path = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => ({ path: [path, k].filter(Boolean).join('.'), message: `unknown ${where === 'query' ? 'query parameter' : 'field'}` }));
    }
    return [{ path: path || where, message: i.message }];
  }).flat();

function validate<S extends z.ZodMiniType>(schema: S | undefined, value: unknown, where: 'body' | 'query' | 'path'): z.output<S> {
  if (!schema) return undefined as z.output<S>;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = fieldErrors(where, r.error);
  const first = errors[0]!;
  throw new ValidationError(`${first.path} ${first.message}`, errors);
}

const routeOf = (event: Event): Route => {
  const route = findRoute(event.routeKey);
  if (!route) throw new Error(`no route table row for ${event.routeKey}`);
  return route;
};

const bodyBytes = (event: Event) =>
  event.body === undefined ? 0 : event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body);

/** What the stack's middlewares learn about a request, handed on through the Lambda context. */
interface State { route: Route; raw?: unknown }
type Ctx = Context & { state: State };
type Mw = middy.MiddlewareObj<Event, Result, Error, Ctx>;

const requestScope: Mw = {
  before: ({ event, context }) => {
    context.state = { route: routeOf(event) };
    logger.resetKeys();
    logger.appendKeys({ requestId: event.requestContext.requestId, route: event.routeKey });
  },
};

const problemErrors: Mw = {
  onError: (request) => {
    const requestId = request.event.requestContext?.requestId ?? 'unknown';
    // A write that still collided after its retries is the client's cue to retry, not a bug.
    const err = request.error instanceof TxConflict || request.error instanceof TxConditionFailed
      ? new Conflict('the resource changed concurrently; try again')
      : asUnavailable(request.error);
    if (err instanceof AppError) {
      if (err.status >= 500) logger.warn('request failed', { code: err.code, error: request.error?.name });
      request.response = problem(err, requestId);
      return;
    }
    logger.error('unhandled error', err as Error);
    request.response = problem(new AppError(500, 'INTERNAL', 'an internal error occurred; quote the request id when reporting it'), requestId);
  },
};

/** 413 past the route's limit; the limit itself is accepted. */
const bodyLimit: Mw = {
  before: ({ event, context }) => {
    const limit = BODY_LIMIT[context.state.route.auth];
    if (bodyBytes(event) > limit) throw new PayloadTooLarge(limit);
  },
};

/** middy's JSON body parser (415 on another content type), its errors mapped to the contract's codes. */
const jsonBody = (wanted: boolean): Mw => {
  const parser = httpJsonBodyParser() as unknown as Mw;
  return {
    before: async (request) => {
      if (!wanted) return;
      if (bodyBytes(request.event) === 0) throw new InvalidJson('a JSON object body is required');
      try {
        await parser.before!(request);
      } catch (e) {
        if ((e as { statusCode?: number }).statusCode === 415) throw new UnsupportedMediaType();
        throw new InvalidJson((e as Error).message === 'Forbidden key in JSON body'
          ? 'the body uses a forbidden key (__proto__ or constructor)'
          : 'the body is not valid JSON');
      }
      const parsed: unknown = request.event.body;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidJson('the body must be a JSON object');
      request.context.state.raw = parsed;
    },
  };
};

const claimsUser = (event: Event): User => {
  const claims = event.requestContext.authorizer?.jwt?.claims ?? {};
  const sub = claims.sub;
  // The authorizer guarantees a verified token; a token without `sub` identifies no one.
  if (typeof sub !== 'string' || !sub) throw new Forbidden('the token carries no subject');
  const email = typeof claims.email === 'string' && claims.email ? claims.email.toLowerCase() : null;
  return { sub, email };
};

/**
 * The one middy stack of every handler, in the contract's order: authentication (with the
 * caller's tenant and role), body size, content type, JSON parsing; then the schemas in `parts`.
 */
function stack<A>(
  authenticate: (event: Event, route: Route) => Promise<A>, wantsBody: boolean,
  run: (event: Event, auth: A, state: State) => Promise<Reply>,
): Handler {
  const authenticated = new WeakMap<Event, A>();
  const authentication: Mw = {
    before: async ({ event, context }) => { authenticated.set(event, await authenticate(event, context.state.route)); },
  };
  return middy<Event, Result, Error, Ctx>()
    .use(requestScope)
    .use(problemErrors)
    .use(authentication)
    .use(bodyLimit)
    .use(jsonBody(wantsBody))
    .handler(async (event, context) =>
      json(await run(event, authenticated.get(event) as A, context.state), event.requestContext.requestId)) as unknown as Handler;
}

const parts = <P extends z.ZodMiniType, B extends z.ZodMiniType, Q extends z.ZodMiniType>(spec: Spec<P, B, Q>, event: Event, state: State) => ({
  requestId: event.requestContext.requestId,
  headers: event.headers,
  params: validate(spec.params, event.pathParameters ?? {}, 'path'),
  query: validate(spec.query, event.queryStringParameters ?? {}, 'query'),
  body: validate(spec.body, state.raw, 'body'),
});

async function withIdempotency(
  spec: { idempotent?: boolean }, event: Event, scope: Omit<IdempotencyScope, 'key'>, body: unknown, work: () => Promise<Reply>,
): Promise<Reply> {
  const key = event.headers['idempotency-key'];
  if (!spec.idempotent || key === undefined) return work();
  if (!/^[\x20-\x7e]{1,128}$/.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 128 printable ASCII characters',
      [{ path: 'Idempotency-Key', message: 'must be 1 to 128 printable ASCII characters' }]);
  }
  return idempotency.run({ ...scope, key }, body, work);
}

export function chatRoute<P extends z.ZodMiniType = NoneT, B extends z.ZodMiniType = NoneT, Q extends z.ZodMiniType = NoneT>(
  spec: Spec<P, B, Q>, fn: (ctx: ChatContext<P, B, Q>) => Promise<Reply>,
): Handler {
  return stack(
    async (event) => {
      const tenant = await widgetTenant(event.headers['x-widget-key'], event.headers.origin);
      logger.appendKeys({ tenantId: tenant.tenantId });
      return tenant;
    },
    spec.body !== undefined,
    (event, tenant, state) => {
      const ctx = { tenant, ...parts(spec, event, state) };
      return withIdempotency(spec, event, { tenantId: tenant.tenantId, route: state.route.handler }, state.raw, () => fn(ctx));
    },
  );
}

export function adminRoute<P extends z.ZodMiniType = NoneT, B extends z.ZodMiniType = NoneT, Q extends z.ZodMiniType = NoneT>(
  spec: Spec<P, B, Q>, fn: (ctx: AdminContext<P, B, Q>) => Promise<Reply>,
): Handler {
  return stack(
    async (event, r) => {
      const user = claimsUser(event);
      const membership = await memberships.ofUser(user.sub);
      if (!membership) throw new NotOnboarded();
      logger.appendKeys({ tenantId: membership.tenantId });
      if (r.role && !roleAtLeast(membership.role, r.role)) throw new Forbidden(`this needs the ${r.role} role or higher`);
      return { user, membership };
    },
    spec.body !== undefined,
    (event, auth, state) => fn({ ...auth, ...parts(spec, event, state) }),
  );
}

/** /auth/me and /auth/onboard: any valid token, whether or not its user has a tenant yet. */
export function userRoute<P extends z.ZodMiniType = NoneT, B extends z.ZodMiniType = NoneT, Q extends z.ZodMiniType = NoneT>(
  spec: Spec<P, B, Q>, fn: (ctx: UserContext<P, B, Q>) => Promise<Reply>,
): Handler {
  return stack(async (event) => claimsUser(event), spec.body !== undefined,
    (event, user, state) => fn({ user, ...parts(spec, event, state) }));
}

export function publicRoute(fn: () => Promise<Reply>): Handler {
  return stack(async () => null, false, () => fn());
}
