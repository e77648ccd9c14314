import * as z from 'zod/mini';
import { BODY_LIMIT, type Route } from './route.ts';
import { routes } from './routes/index.ts';

// The OpenAPI 3.1 document of the whole API, generated from the route table and the zod schemas
// the handlers validate with, so that the document cannot drift from the code.

type Json = Record<string, unknown>;

const ERROR_CODES = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INVALID_CURSOR',
  'UNAUTHORIZED',
  'NOT_ONBOARDED',
  'FORBIDDEN',
  'ORIGIN_NOT_ALLOWED',
  'NOT_FOUND',
  'ALREADY_ONBOARDED',
  'CONFLICT',
  'INVALID_TRANSITION',
  'CONVERSATION_CLOSED',
  'IDEMPOTENCY_IN_PROGRESS',
  'EMAIL_SUPPRESSED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;

const DESCRIPTION = `Multi-tenant customer-support assistant: the chat API (widget-facing, \`/api/v1/chat\`) and the admin API
(dashboard-facing, \`/api/v1/admin\`). JSON in, JSON out, UTF-8.

**Authentication.** Chat routes: header \`X-Widget-Key: wk_...\`, the tenant's widget key (security scheme \`widgetKey\`);
a missing, unknown or revoked key is 401 \`UNAUTHORIZED\`; an \`Origin\` outside the tenant's non-empty
\`widget.allowedOrigins\` is 403 \`ORIGIN_NOT_ALLOWED\` (no \`Origin\` passes). Admin routes: \`Authorization: Bearer <access token>\`
(security scheme \`bearer\`), verified by the API Gateway JWT authorizer (signature, \`iss\`, \`aud\` or \`client_id\`, \`exp\`, \`nbf\`);
a failing token gets the gateway's own 401 \`{"message":"Unauthorized"}\` with no request id. The token's \`sub\` is the user id.

**Roles**, lowest to highest: \`viewer\` (reads), \`agent\` (+ PATCH tickets), \`admin\` (+ intents, integrations and settings
writes), \`owner\` (+ member management, widget key rotation). Each operation names the role it needs (\`x-required-role\`);
a lower role is 403 \`FORBIDDEN\`; a valid token of a user in no tenant is 403 \`NOT_ONBOARDED\`.

**Errors** are RFC 9457 problem documents (\`application/problem+json\`, schema \`Problem\`) with the extension members \`code\`,
\`requestId\` (equal to the \`x-request-id\` header that every response carries) and, for \`VALIDATION_ERROR\`, \`errors[]\` naming
each failing field. Checks run in this order, the first failing one answering: authentication, body size, content type,
JSON parsing, schema. An empty body where one is required is \`INVALID_JSON\`. Unknown body fields and unknown query
parameters are rejected (400). Another tenant's id is 404, never 403. An unknown route is the gateway's 404 \`{"message":"Not Found"}\`.
500 \`INTERNAL\` carries no internal detail; 503 \`UNAVAILABLE\` (database unreachable, nothing half-written) and 429
\`RATE_LIMITED\` carry \`Retry-After\` in seconds.

**Conventions.** Ids of tenants, conversations, messages and intents are UUID v4; tickets are \`tkt_\` + a 26-character ULID;
integration and article ids are opaque (an unknown one of any shape is 404).
Timestamps are ISO 8601 UTC with milliseconds. Strings are trimmed before length checks and stored trimmed; lengths count
Unicode code points.

**Pagination** of lists: query \`limit\` (1 to 100, default 20) and \`cursor\` (opaque, signed and bound to the tenant, the list
and its filters; anything else is 400 \`INVALID_CURSOR\`); response \`{ items, nextCursor }\` (\`null\` on the last page), newest
first. \`/intents\`, \`/integrations\` and \`/members\` are bounded and return every item as \`{ items }\`.

**Idempotency.** \`POST /chat/message\` and \`POST /chat/escalate\` honour an optional \`Idempotency-Key\` header (1 to 128 printable
ASCII characters, scoped to the tenant): the same key with the same body within 24 hours returns the first response and
writes nothing; with a different body 422 \`IDEMPOTENCY_KEY_REUSED\`; while the first request runs 409
\`IDEMPOTENCY_IN_PROGRESS\` with \`Retry-After\`. Only 2xx responses are kept; a first request that died after its writes
committed is not run again: 409 \`CONFLICT\` (its answer was lost).

**Limits.** Request body: ${BODY_LIMIT.widget / 1024} KiB on chat routes, ${BODY_LIMIT.jwt / 1024} KiB on admin routes (the limit itself is
accepted; over it 413). Chat message 1 to 2000 characters; 30 chat messages a minute and 1,000 user messages per
conversation; 200 intents and 1,000 help articles per tenant; settings \`config\` at most 16 KiB.`;

/** Converts a zod schema; `$defs` are hoisted into the components so that their references resolve. */
function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output', defs: Json): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  const local = out.$defs as Json | undefined;
  delete out.$defs;
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [
          k,
          k === '$ref' && typeof x === 'string' ? x.replace(/^#\/\$defs\//, '#/components/schemas/') : rewrite(x),
        ]),
      );
    }
    return v;
  };
  if (local) for (const [k, v] of Object.entries(local)) defs[k] = rewrite(v);
  return rewrite(out) as Json;
}

const operationId = (handler: string) =>
  handler
    .split(/[/-]/)
    .map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join('');

const problemRef = { $ref: '#/components/schemas/Problem' };
const requestIdHeader = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };

function problemResponse(status: number, codes: string[], note = ''): Json {
  const headers: Json = { ...requestIdHeader };
  if (status === 429 || status === 503) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
  return {
    description: `${codes.map((c) => `\`${c}\``).join(', ')}${note ? `: ${note}` : ''}`,
    headers,
    content: {
      'application/problem+json': {
        schema:
          codes.length === 1
            ? { allOf: [problemRef, { properties: { status: { const: status }, code: { const: codes[0] } } }] }
            : { allOf: [problemRef, { properties: { status: { const: status }, code: { enum: codes } } }] },
      },
    },
  };
}

function parameters(where: 'path' | 'query', schema: z.ZodMiniType | undefined, route: Route, defs: Json): Json[] {
  if (!schema) {
    if (where === 'query') return [];
    // No schema: every template name is still a required string.
    return [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
  }
  const obj = jsonSchema(schema, 'input', defs);
  const props = (obj.properties ?? {}) as Record<string, Json>;
  const required = new Set((obj.required ?? []) as string[]);
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? props;
  return Object.keys(shape)
    .filter((n) => props[n])
    .map((name) => {
      const { description, ...s } = props[name]!;
      return {
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: s,
        ...(typeof description === 'string' ? { description } : {}),
      };
    });
}

function operation(route: Route, defs: Json): Json {
  const query = parameters('query', route.query, route, defs);
  const paginated = query.some((p) => p.name === 'cursor');
  const params = [...parameters('path', route.params, route, defs), ...query];
  if (route.idempotent) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Same key and body within 24 hours: the first response again, nothing written. Scoped to the tenant.',
      schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x20-\\x7e]{1,128}$' },
    });
  }

  const notes: string[] = [];
  if (route.auth === 'jwt')
    notes.push(route.role ? `Role: \`${route.role}\` or higher.` : 'Role: any valid token, with or without a tenant.');
  if (route.auth === 'widget') notes.push("Authentication: the tenant's widget key.");
  if (route.auth === 'none') notes.push('Public: no authentication.');
  if (route.idempotent) notes.push('Honours the `Idempotency-Key` header.');
  if (paginated)
    notes.push(
      'Paginated: `limit` (1 to 100, default 20) and `cursor`; `nextCursor` is null on the last page; newest first.',
    );
  if (route.description) notes.push(route.description);

  const responses: Json = {};
  const ok: Json = { description: route.summary, headers: { ...requestIdHeader } };
  if (route.response && route.status !== 204)
    ok.content = { 'application/json': { schema: jsonSchema(route.response, 'output', defs) } };
  responses[String(route.status)] = ok;
  if (route.alternate) {
    const other = route.alternate.response;
    responses[String(route.alternate.status)] = {
      ...ok,
      description: route.alternate.description,
      ...(other ? { content: { 'application/json': { schema: jsonSchema(other, 'output', defs) } } } : {}),
    };
  }

  const has = {
    input: Boolean(route.params || route.query || route.body || route.idempotent),
    body: Boolean(route.body),
  };
  const bad = [
    ...(has.input ? ['VALIDATION_ERROR'] : []),
    ...(has.body ? ['INVALID_JSON'] : []),
    ...(paginated ? ['INVALID_CURSOR'] : []),
  ];
  if (bad.length) responses['400'] = problemResponse(400, bad);
  if (route.auth === 'widget') {
    responses['401'] = problemResponse(401, ['UNAUTHORIZED'], 'missing, unknown or revoked widget key');
    responses['403'] = problemResponse(403, ['ORIGIN_NOT_ALLOWED']);
  }
  if (route.auth === 'jwt') {
    responses['401'] = { $ref: '#/components/responses/GatewayUnauthorized' };
    responses['403'] = problemResponse(
      403,
      route.role ? ['NOT_ONBOARDED', 'FORBIDDEN'] : ['FORBIDDEN'],
      route.role ? `no tenant, or a role below \`${route.role}\`` : 'a token without a subject',
    );
  }
  const refersToId = route.path.includes('{') || (route.auth === 'widget' && route.body !== undefined);
  if (refersToId) responses['404'] = problemResponse(404, ['NOT_FOUND'], 'unknown id, or an id of another tenant');
  if (route.conflicts?.length) responses['409'] = problemResponse(409, route.conflicts);
  if (route.auth !== 'none' || route.body)
    responses['413'] = problemResponse(413, ['PAYLOAD_TOO_LARGE'], `body over ${BODY_LIMIT[route.auth]} bytes`);
  if (route.body)
    responses['415'] = problemResponse(
      415,
      ['UNSUPPORTED_MEDIA_TYPE'],
      'a body with a content type other than application/json',
    );
  if (route.idempotent) responses['422'] = problemResponse(422, ['IDEMPOTENCY_KEY_REUSED']);
  if (route.rateLimited) responses['429'] = problemResponse(429, ['RATE_LIMITED']);
  responses['500'] = problemResponse(500, ['INTERNAL']);
  if (route.table !== 'none') responses['503'] = problemResponse(503, ['UNAVAILABLE']);

  return {
    operationId: operationId(route.handler),
    summary: route.summary,
    description: notes.join('\n\n'),
    tags: [route.auth === 'widget' ? 'chat' : route.auth === 'jwt' ? 'admin' : 'public'],
    security: route.auth === 'widget' ? [{ widgetKey: [] }] : route.auth === 'jwt' ? [{ bearer: [] }] : [],
    ...(route.auth === 'jwt' ? { 'x-required-role': route.role ?? 'any' } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.bodyOptional,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input', defs) } },
          },
        }
      : {}),
    responses,
  };
}

/** Builds the document from the route declarations. */
export function buildOpenApi(): Json {
  const defs: Json = {};
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route, defs);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Support assistant API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: [
      { name: 'chat', description: 'Widget-facing; `X-Widget-Key`' },
      { name: 'admin', description: 'Dashboard-facing; bearer JWT' },
      { name: 'public', description: 'No authentication' },
    ],
    paths,
    components: {
      securitySchemes: {
        widgetKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Widget-Key',
          description: "The tenant's widget key, `wk_...`",
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token of the configured issuer',
        },
      },
      headers: {
        RequestId: { description: 'The request id; problem documents repeat it', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
      },
      responses: {
        GatewayUnauthorized: {
          description:
            'The API Gateway JWT authorizer refused the token (missing, bad signature, wrong issuer or audience, ' +
            "expired, not yet valid). The gateway's own body; no `x-request-id`.",
          content: { 'application/json': { schema: { $ref: '#/components/schemas/GatewayError' } } },
        },
      },
      schemas: {
        ...defs,
        Problem: {
          type: 'object',
          description:
            'RFC 9457 problem document with the extension members code, requestId and (VALIDATION_ERROR) errors',
          required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
          properties: {
            type: { type: 'string', const: 'about:blank' },
            title: { type: 'string', examples: ['Bad Request'] },
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: { type: 'string' },
            code: { type: 'string', enum: [...ERROR_CODES] },
            requestId: { type: 'string', description: 'Equals the `x-request-id` header' },
            errors: {
              type: 'array',
              description: 'Present for `VALIDATION_ERROR`: one entry per failing field',
              items: {
                type: 'object',
                required: ['path', 'message'],
                additionalProperties: false,
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
          examples: [
            {
              type: 'about:blank',
              title: 'Bad Request',
              status: 400,
              detail: 'message must be at most 2000 characters',
              code: 'VALIDATION_ERROR',
              requestId: 'c0a8012e-7f3b-4c1e-9a53-2f1d3b4e5f60',
              errors: [{ path: 'message', message: 'must be at most 2000 characters' }],
            },
          ],
        },
        GatewayError: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string', examples: ['Unauthorized'] } },
        },
      },
    },
  };
}
