import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import {
  AppError,
  Conflict,
  Forbidden,
  InvalidJson,
  NotOnboarded,
  PayloadTooLarge,
  UnsupportedMediaType,
  ValidationError,
  type FieldError,
} from '#shared/core/errors.ts';
import { roleAtLeast, type Actor, type User } from '#shared/core/vocabulary.ts';
import { asUnavailable } from '#shared/data/client.ts';
import { TxConditionFailed, TxConflict } from '#shared/data/tx.ts';
import { membersRepo, type Membership } from '#shared/data/members.ts';
import { idempotency, type IdempotencyScope } from '#shared/data/idempotency.ts';
import { widgetTenant, type WidgetTenant } from '#shared/domain/tenants/widget-auth.ts';
import { BODY_LIMIT, type Route } from './route.ts';
import { logger } from '#shared/core/log.ts';
import { count } from '#shared/core/metrics.ts';
import { METRIC } from '#shared/core/metric-names.ts';
import { problem, json, type Reply } from './response.ts';
import { observability } from './observe.ts';

export type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
export type Result = APIGatewayProxyStructuredResultV2;
export type Handler = (event: Event, context: Context) => Promise<Result>;

type Schema = z.ZodMiniType | undefined;
type Out<S extends Schema> = S extends z.ZodMiniType ? z.output<S> : undefined;

interface Base<R extends Route> {
  params: Out<NonNullable<R['params']>>;
  body: Out<NonNullable<R['body']>>;
  query: Out<NonNullable<R['query']>>;
  requestId: string;
  headers: Record<string, string | undefined>;
}

export interface ChatContext<R extends Route> extends Base<R> {
  tenant: WidgetTenant;
  /** The tenant the widget key belongs to. */
  tenantId: string;
  /** The browser's `Origin`; the domain checks it against the tenant's settings, read fresh. */
  origin: string | undefined;
  /** The caller's address as the gateway saw it (the local runtime passes its socket's). */
  sourceIp: string;
}
export interface AdminContext<R extends Route> extends Base<R> {
  user: User;
  /** The caller's membership; present on every route with a minimum role. */
  membership: Membership;
  tenantId: string;
  /** The caller as an audit entry names it. */
  actor: Actor;
}
/** /auth/me and /auth/onboard: any valid token, with or without a tenant. */
export interface UserContext<R extends Route> extends Base<R> {
  user: User;
}

const fieldErrors = (where: 'body' | 'query' | 'path', err: z.core.$ZodError): FieldError[] =>
  err.issues.flatMap((i) => {
    const path = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => ({
        path: [path, k].filter(Boolean).join('.'),
        message: `unknown ${where === 'query' ? 'query parameter' : 'field'}`,
      }));
    }
    return [{ path: path || where, message: i.message }];
  });

function validate(schema: z.ZodMiniType | undefined, value: unknown, where: 'body' | 'query' | 'path'): unknown {
  if (!schema) return undefined;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = fieldErrors(where, r.error);
  const first = errors[0]!;
  throw new ValidationError(`${first.path} ${first.message}`, errors);
}

const bodyBytes = (event: Event) =>
  event.body === undefined
    ? 0
    : event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').length
      : Buffer.byteLength(event.body);

/** What the stack's middlewares learn about a request, handed on through the Lambda context. */
interface State {
  route: Route;
  raw?: unknown;
}
type Ctx = Context & { state: State };
type Mw = middy.MiddlewareObj<Event, Result, Error, Ctx>;

const requestScope = (route: Route): Mw => ({
  before: ({ event, context }) => {
    context.state = { route };
    logger.appendKeys({ requestId: event.requestContext.requestId, route: event.routeKey });
  },
});

const problemErrors: Mw = {
  onError: (request) => {
    const requestId = request.event.requestContext?.requestId ?? 'unknown';
    // A write that still collided after its retries is the client's cue to retry, not a bug.
    const err =
      request.error instanceof TxConflict || request.error instanceof TxConditionFailed
        ? new Conflict('the resource changed concurrently; try again')
        : asUnavailable(request.error);
    if (!(err instanceof AppError) || err.status >= 500) count(METRIC.serverErrors);
    if (err instanceof AppError) {
      if (err.status >= 500) logger.warn('request failed', { code: err.code, error: request.error?.name });
      request.response = problem(err, requestId);
      return;
    }
    logger.error('unhandled error', err as Error);
    request.response = problem(
      new AppError(500, 'INTERNAL', 'an internal error occurred; quote the request id when reporting it'),
      requestId,
    );
  },
};

/** 413 past the route's limit; the limit itself is accepted. */
const bodyLimit: Mw = {
  before: ({ event, context }) => {
    const limit = BODY_LIMIT[context.state.route.auth];
    if (bodyBytes(event) > limit) throw new PayloadTooLarge(limit);
  },
};

/** middy's JSON body parser (415 on another content type), its errors mapped to the API's codes (docs/API.md, Errors). */
const jsonBody = (wanted: boolean, optional = false): Mw => {
  const parser = httpJsonBodyParser() as unknown as Mw;
  return {
    before: async (request) => {
      if (!wanted) return;
      if (bodyBytes(request.event) === 0) {
        if (!optional) throw new InvalidJson('a JSON object body is required');
        request.context.state.raw = {};
        return;
      }
      try {
        await parser.before!(request);
      } catch (e) {
        if ((e as { statusCode?: number }).statusCode === 415) throw new UnsupportedMediaType();
        throw new InvalidJson(
          (e as Error).message === 'Forbidden key in JSON body'
            ? 'the body uses a forbidden key (__proto__ or constructor)'
            : 'the body is not valid JSON',
        );
      }
      const parsed: unknown = request.event.body;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new InvalidJson('the body must be a JSON object');
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
 * The one middy stack of every handler, in the order of docs/API.md (Errors): the Lambda context on the logs
 * and the invocation's metrics published at its end; authentication (with the caller's tenant
 * and role), body size, content type, JSON parsing; then the route's schemas. The
 * handler returns the body; the route's declared status goes with it.
 */
function stack<A>(
  route: Route,
  authenticate: (event: Event, route: Route) => Promise<A>,
  run: (event: Event, auth: A, state: State) => Promise<Reply>,
): Handler {
  const authenticated = new WeakMap<Event, A>();
  const authentication: Mw = {
    before: async ({ event, context }) => {
      authenticated.set(event, await authenticate(event, context.state.route));
    },
  };
  return middy<Event, Result, Error, Ctx>()
    .use(observability() as Mw[])
    .use(requestScope(route))
    .use(problemErrors)
    .use(authentication)
    .use(bodyLimit)
    .use(jsonBody(route.body !== undefined, route.bodyOptional))
    .handler(async (event, context) =>
      json(await run(event, authenticated.get(event) as A, context.state), event.requestContext.requestId),
    ) as unknown as Handler;
}

const parts = <R extends Route>(route: R, event: Event, state: State) =>
  ({
    requestId: event.requestContext.requestId,
    headers: event.headers,
    params: validate(route.params, event.pathParameters ?? {}, 'path'),
    query: validate(route.query, event.queryStringParameters ?? {}, 'query'),
    body: validate(route.body, state.raw, 'body'),
  }) as Base<R>;

/** A handler's body answered with the route's `alternate` status instead of its usual one. */
export class WithStatus {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}
export const withStatus = (status: number, body: unknown) => new WithStatus(status, body);

const reply = (route: Route, body: unknown): Reply => {
  if (body instanceof WithStatus) {
    if (body.status !== route.status && body.status !== route.alternate?.status)
      throw new Error(`${route.path} does not declare status ${body.status}`);
    return { status: body.status, body: body.body };
  }
  return route.status === 204 ? { status: 204 } : { status: route.status, body };
};

async function withIdempotency(
  route: Route,
  event: Event,
  scope: Omit<IdempotencyScope, 'key'>,
  body: unknown,
  work: () => Promise<Reply>,
): Promise<Reply> {
  const key = event.headers['idempotency-key'];
  if (!route.idempotent || key === undefined) return work();
  if (!/^[\x20-\x7e]{1,128}$/.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 128 printable ASCII characters', [
      { path: 'Idempotency-Key', message: 'must be 1 to 128 printable ASCII characters' },
    ]);
  }
  return idempotency.run({ ...scope, key }, body, work, (r) => conversationOf(route, event, body, r));
}

/** The conversation a request was about (its path's, its answer's or its body's `conversationId`). */
function conversationOf(route: Route, event: Event, body: unknown, reply: Reply): string | undefined {
  if (route.path.includes('/conversations/{id}')) return event.pathParameters?.id;
  const named = (x: unknown) =>
    x && typeof x === 'object' && typeof (x as { conversationId?: unknown }).conversationId === 'string'
      ? (x as { conversationId: string }).conversationId
      : undefined;
  return named(reply.body) ?? named(body);
}

/** A widget-key route: the key's tenant, and `Idempotency-Key` where declared. */
export function chatRoute<R extends Route>(route: R, fn: (ctx: ChatContext<R>) => Promise<unknown>): Handler {
  return stack(
    route,
    async (event) => {
      const tenant = await widgetTenant(event.headers['x-widget-key']);
      logger.appendKeys({ tenantId: tenant.tenantId });
      return tenant;
    },
    (event, tenant, state) => {
      const ctx = {
        tenant,
        tenantId: tenant.tenantId,
        origin: event.headers.origin,
        sourceIp: event.requestContext.http.sourceIp,
        ...parts(route, event, state),
      };
      return withIdempotency(route, event, { tenantId: tenant.tenantId, route: route.handler }, state.raw, async () =>
        reply(route, await fn(ctx)),
      );
    },
  );
}

/** A member's route: the caller's membership, and the route's minimum role. */
export function adminRoute<R extends Route>(route: R, fn: (ctx: AdminContext<R>) => Promise<unknown>): Handler {
  return stack(
    route,
    async (event, r) => {
      const user = claimsUser(event);
      const membership = await membersRepo.membershipOf(user.sub);
      if (!membership) throw new NotOnboarded();
      logger.appendKeys({ tenantId: membership.tenantId });
      if (r.role && !roleAtLeast(membership.role, r.role))
        throw new Forbidden(`this needs the ${r.role} role or higher`);
      return { user, membership, tenantId: membership.tenantId, actor: { type: 'user' as const, id: user.sub } };
    },
    async (event, auth, state) => {
      const ctx = { ...auth, ...parts(route, event, state) };
      // Scoped to the member too: a key never replays one member's response (a secret) to another.
      return withIdempotency(
        route,
        event,
        { tenantId: auth.tenantId, route: `${route.handler}#${auth.user.sub}` },
        state.raw,
        async () => reply(route, await fn(ctx)),
      );
    },
  );
}

/** /auth/me and /auth/onboard: any valid token, whether or not its user has a tenant yet. */
export function userRoute<R extends Route>(route: R, fn: (ctx: UserContext<R>) => Promise<unknown>): Handler {
  return stack(
    route,
    async (event) => claimsUser(event),
    async (event, user, state) => {
      const ctx = { user, ...parts(route, event, state) };
      // Before onboarding there is no tenant: the caller's own keys, apart from every tenant's.
      return withIdempotency(
        route,
        event,
        { tenantId: `user:${user.sub}`, route: route.handler },
        state.raw,
        async () => reply(route, await fn(ctx)),
      );
    },
  );
}

export function publicRoute<R extends Route>(route: R, fn: () => Promise<unknown>): Handler {
  return stack(
    route,
    async () => null,
    async () => reply(route, await fn()),
  );
}
