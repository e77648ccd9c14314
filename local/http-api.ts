import type { IncomingMessage, ServerResponse } from 'node:http';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { eventOf, lambdaContext } from './events.ts';

// API Gateway's HTTP API: the route table's routes matched as the gateway matches them, its CORS
// answers, its JWT authorizer, and payload v2 events built from real HTTP requests. Nothing here
// is wired twice: the routes and the handler files are the ones the CDK stack deploys.

const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;

// CORS as the HTTP API's configuration answers it: preflights never reach a function, and the
// gateway's headers replace any a function returns.
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-request-id, retry-after',
};
const PREFLIGHT_HEADERS = {
  'access-control-allow-headers': 'content-type, authorization, x-widget-key, idempotency-key',
  'access-control-max-age': '3600',
};

export type ApiHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
}
const compiled: Compiled[] = routes.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n: string) => {
    names.push(n);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
});

/** A malformed escape (`%`, `%zz`, invalid UTF-8) is passed on as sent, for the handler's schema to refuse, not a crash. */
const decodePathValue = (v: string) => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

function match(method: string, path: string) {
  for (const c of compiled) {
    if (c.route.method !== method) continue;
    const m = c.pattern.exec(path);
    if (m)
      return { route: c.route, params: Object.fromEntries(c.names.map((n, i) => [n, decodePathValue(m[i + 1]!)])) };
  }
  return null;
}

const allMethods = [...new Set(routes.map((r) => r.method))].join(', ');
/** The methods of the routes at a path, or every method of the route table when no route is there. */
function allowedMethods(path: string) {
  const methods = [...new Set(compiled.filter((c) => c.pattern.test(path)).map((c) => c.route.method))];
  return methods.length ? methods.join(', ') : allMethods;
}

/** API Gateway passes JWT claims as strings (arrays as `[a b]`). */
const gatewayClaims = (payload: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(payload).map(([k, v]) => [
      k,
      typeof v === 'string'
        ? v
        : Array.isArray(v)
          ? `[${v.join(' ')}]`
          : typeof v === 'object'
            ? JSON.stringify(v)
            : String(v),
    ]),
  );

const TEXT_TYPES = /^(application\/(.+\+)?json|text\/|application\/x-www-form-urlencoded|application\/xml)/i;

function buildEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  params: Record<string, string>,
  body: Buffer,
  claims: Record<string, string> | null,
): APIGatewayProxyEventV2WithJWTAuthorizer {
  // Null-prototype maps: a header or parameter named __proto__ or constructor is an ordinary key.
  const headers: Record<string, string> = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  const query: Record<string, string> = Object.create(null);
  for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  const binary = body.length > 0 && !TEXT_TYPES.test(headers['content-type'] ?? '');
  return eventOf({
    route,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    query,
    params,
    ...(body.length ? { body: binary ? body.toString('base64') : body.toString('utf8') } : {}),
    isBase64Encoded: binary,
    claims,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
    domainName: url.host,
  });
}

export const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

export async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_BODY_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The issuer whose tokens the JWT authorizer accepts. */
export interface JwtIssuer {
  issuer: string;
  clientId: string;
  jwksUri: string;
}

export interface HttpApi {
  /** Sets the CORS headers every answer carries, and answers a preflight (true when it did). */
  cors(req: IncomingMessage, res: ServerResponse, url: URL, method: string): boolean;
  /** Answers a request for a route; false when no route is at its method and path. */
  route(req: IncomingMessage, res: ServerResponse, url: URL, method: string, body: Buffer): Promise<boolean>;
  /** Points the JWT authorizer at the issuer and fetches its keys. */
  authorizeWith(issuer: JwtIssuer): Promise<void>;
  /** How many times the JWT authorizer fetched the JWKS (a flood of unknown kids must not raise it per token). */
  jwksFetches(): number;
}

/** Invokes a route's handler with its event, as the integration does (runtime.ts: in process, or in a lane). */
export type RouteInvoker = (
  route: Route,
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** `load` gives a route's handler by its declared name, invoked in process with a Lambda context. */
export const inProcess =
  (load: (handler: string) => Promise<ApiHandler>): RouteInvoker =>
  async (route, event) =>
    (await load(route.handler))(event, lambdaContext(route));

export function createHttpApi(invoke: RouteInvoker): HttpApi {
  let verifier!: ReturnType<typeof JwtVerifier.create>;
  let fetches = 0;
  return {
    cors(req, res, url, method) {
      for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v);
      if (method !== 'OPTIONS') return false;
      req.resume();
      res.writeHead(204, { 'access-control-allow-methods': allowedMethods(url.pathname), ...PREFLIGHT_HEADERS });
      res.end();
      return true;
    },

    async route(req, res, url, method, body) {
      const found = match(method, url.pathname);
      if (!found) return false;
      let claims: Record<string, string> | null = null;
      if (found.route.auth === 'jwt') {
        const auth = req.headers.authorization ?? '';
        const token = /^Bearer (.+)$/i.exec(auth)?.[1]?.trim();
        try {
          if (!token) throw new Error('no token');
          claims = gatewayClaims((await verifier.verify(token)) as unknown as Record<string, unknown>);
        } catch {
          // The gateway's own answer: no request id, no problem document.
          send(res, 401, '{"message":"Unauthorized"}', { 'www-authenticate': 'Bearer' });
          return true;
        }
      }
      const result = await invoke(found.route, buildEvent(req, url, found.route, found.params, body, claims));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(result.headers ?? {}))
        if (!/^access-control-/i.test(k)) headers[k] = String(v);
      res.writeHead(result.statusCode ?? 200, headers);
      res.end(
        result.body === undefined
          ? undefined
          : result.isBase64Encoded
            ? Buffer.from(result.body, 'base64')
            : result.body,
      );
      return true;
    },

    async authorizeWith(idp) {
      // As the HTTP API authorizer: signature against the JWKS, iss, aud or client_id, exp (required), nbf.
      verifier = JwtVerifier.create(
        {
          issuer: idp.issuer,
          audience: null,
          jwksUri: idp.jwksUri,
          customJwtCheck: ({ payload }) => {
            if (payload.exp === undefined) throw new Error('token has no exp');
            const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
            if (!aud.includes(idp.clientId) && payload.client_id !== idp.clientId)
              throw new Error('token is for another audience');
          },
        },
        {
          // aws-jwt-verify's own fetcher speaks https only; this one fetches the local issuer's JWKS over http.
          jwksCache: new SimpleJwksCache({
            fetcher: {
              fetch: async (uri: string) => {
                fetches++;
                return (await fetch(uri)).arrayBuffer();
              },
            },
          }),
        },
      );
      await verifier.hydrate();
    },

    jwksFetches: () => fetches,
  };
}
