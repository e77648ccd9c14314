import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routes } from '#shared/http/routes/index.ts';
import { LIVE_PATH } from '#shared/http/triggers.ts';
import type { Route } from '#shared/http/route.ts';
import { createLocalIdp, type LocalIdp } from './idp.ts';
import { eventOf, lambdaContext } from './events.ts';
import { ensureTable, startDynamoLocal, type DynamoLocal } from './dynamodb-local.ts';
import { createLocalQueue, isQueueRequest, type LocalQueue, type SqsHandler } from './queue.ts';
import { DELIVERY_QUEUE } from '#shared/data/queue-settings.ts';
import { dashboardHandler, type DashboardOptions } from './dashboard.ts';

// The local runtime: serves the route table's handlers on 127.0.0.1 as API Gateway's HTTP API
// would, building payload v2 events from real HTTP requests. Nothing here is wired twice: the
// routes, the handler files and the table definition are the ones the CDK stack deploys.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;

export interface RuntimeOptions {
  port?: number;
  host?: string;
  /** Use this DynamoDB endpoint instead of starting DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Keep DynamoDB Local's data in this folder between runs. */
  dataDir?: string;
  tableName?: string;
  /** Lets webhooks point at loopback http receivers (`--allow-loopback-webhooks`), for tests. */
  allowLoopbackWebhooks?: boolean;
  /** Compresses the delivery queue's delays and visibility timeouts (tests); default env DELIVERY_TIME_SCALE, else 1. */
  deliveryTimeScale?: number;
  /** Serve the built dashboard at `/` (bin/local/dashboard.ts). */
  dashboard?: DashboardOptions;
}

export interface LocalRuntime {
  url: string;
  port: number;
  idp: LocalIdp;
  dynamo: DynamoLocal | null;
  dynamodbEndpoint: string;
  /** The delivery queue's emulation, fed to functions/events/deliver.ts. */
  queue: LocalQueue;
  /** How many times the JWT verifier fetched the JWKS (a flood of unknown kids must not raise it per token). */
  jwksFetches(): number;
  stop(): Promise<void>;
}

type Handler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface Compiled { route: Route; pattern: RegExp; names: string[] }
const compiled: Compiled[] = routes.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n: string) => { names.push(n); return '([^/]+)'; });
  return { route, pattern: new RegExp(`^${source}$`), names };
});

/** A malformed escape (`%`, `%zz`, invalid UTF-8) is passed on as sent, for the handler's schema to refuse, not a crash. */
const decodePathValue = (v: string) => { try { return decodeURIComponent(v); } catch { return v; } };

function match(method: string, path: string) {
  for (const c of compiled) {
    if (c.route.method !== method) continue;
    const m = c.pattern.exec(path);
    if (m) return { route: c.route, params: Object.fromEntries(c.names.map((n, i) => [n, decodePathValue(m[i + 1]!)])) };
  }
  return null;
}

const handlers = new Map<string, Promise<Handler>>();
const loadHandler = (file: string): Promise<Handler> => {
  let h = handlers.get(file);
  if (!h) {
    h = import(pathToFileURL(join(ROOT, 'functions', `${file}.ts`)).href).then((m: { handler: Handler }) => m.handler);
    handlers.set(file, h);
  }
  return h;
};

/** API Gateway passes JWT claims as strings (arrays as `[a b]`). */
const gatewayClaims = (payload: Record<string, unknown>) => Object.fromEntries(Object.entries(payload).map(([k, v]) => [k,
  typeof v === 'string' ? v : Array.isArray(v) ? `[${v.join(' ')}]` : typeof v === 'object' ? JSON.stringify(v) : String(v)]));

const TEXT_TYPES = /^(application\/(.+\+)?json|text\/|application\/x-www-form-urlencoded|application\/xml)/i;

function buildEvent(req: IncomingMessage, url: URL, route: Route, params: Record<string, string>, body: Buffer,
  claims: Record<string, string> | null): APIGatewayProxyEventV2WithJWTAuthorizer {
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
    route, rawPath: url.pathname, rawQueryString: url.search.slice(1), headers, query, params,
    ...(body.length ? { body: binary ? body.toString('base64') : body.toString('utf8') } : {}),
    isBase64Encoded: binary, claims,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1', protocol: `HTTP/${req.httpVersion}`, domainName: url.host,
  });
}

const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_BODY_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function startLocalRuntime(opts: RuntimeOptions = {}): Promise<LocalRuntime> {
  const tableName = opts.tableName ?? 'support-assistant-local';
  const dynamo = opts.dynamodbEndpoint ? null : await startDynamoLocal(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const dynamodbEndpoint = opts.dynamodbEndpoint ?? dynamo!.endpoint;
  // The handlers read their configuration from the environment, as in Lambda.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    CURSOR_SECRET: process.env.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    LOCAL_DATA_KEY: process.env.LOCAL_DATA_KEY ?? randomBytes(32).toString('base64'),
    POWERTOOLS_SERVICE_NAME: process.env.POWERTOOLS_SERVICE_NAME ?? 'support-assistant-local',
  });
  await ensureTable(dynamodbEndpoint, tableName);

  let idp!: LocalIdp;
  let verifier!: ReturnType<typeof JwtVerifier.create>;
  let fetches = 0;
  let dashboard: ReturnType<typeof dashboardHandler> | null = null;

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('local runtime error', err);
      if (!res.headersSent) send(res, 500, '{"message":"Internal Server Error"}');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const body = await readBody(req);
    if (body === null) return send(res, 413, '{"message":"Request Entity Too Large"}');

    if (url.pathname.startsWith('/local-idp/')) {
      const r = await idp.handle(method, url, req.headers['content-type'] ?? '', body);
      if (r) { res.writeHead(r.status, r.headers); return res.end(r.body); }
      return idpRoute(method, url.pathname, body, res);
    }
    if (isQueueRequest(url.pathname)) {
      const r = queue.serve(String(req.headers['x-amz-target'] ?? ''), body.toString('utf8'));
      return send(res, r.status, r.body, r.headers);
    }

    const found = match(method, url.pathname);
    if (!found) {
      if (dashboard && await dashboard(method, url, res)) return;
      return send(res, 404, '{"message":"Not Found"}');
    }

    let claims: Record<string, string> | null = null;
    if (found.route.auth === 'jwt') {
      const auth = req.headers.authorization ?? '';
      const token = /^Bearer (.+)$/i.exec(auth)?.[1]?.trim();
      try {
        if (!token) throw new Error('no token');
        claims = gatewayClaims(await verifier.verify(token) as unknown as Record<string, unknown>);
      } catch {
        // The gateway's own answer: no request id, no problem document.
        return send(res, 401, '{"message":"Unauthorized"}', { 'www-authenticate': 'Bearer' });
      }
    }

    const handler = await loadHandler(found.route.handler);
    const result = await handler(buildEvent(req, url, found.route, found.params, body, claims), lambdaContext(found.route));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
    res.writeHead(result.statusCode ?? 200, headers);
    res.end(result.body === undefined ? undefined : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  }

  async function idpRoute(method: string, path: string, body: Buffer, res: ServerResponse) {
    if (method === 'POST' && path === '/local-idp/token') {
      let input: { sub?: unknown; email?: unknown; claims?: unknown };
      try { input = JSON.parse(body.toString('utf8') || '{}') as typeof input; } catch { return send(res, 400, '{"error":"invalid_request","error_description":"body is not JSON"}'); }
      if (typeof input.sub !== 'string' || !input.sub) return send(res, 400, '{"error":"invalid_request","error_description":"sub is required"}');
      const claims = input.claims && typeof input.claims === 'object' ? input.claims as Record<string, unknown> : {};
      const accessToken = await idp.token({ sub: input.sub, email: typeof input.email === 'string' ? input.email : null, claims });
      return send(res, 200, JSON.stringify({ accessToken, tokenType: 'Bearer', expiresIn: 3600 }));
    }
    return send(res, 404, '{"message":"Not Found"}');
  }

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(opts.port ?? 0, host, () => resolve()); });
  const port = (server.address() as { port: number }).port;
  const url = `http://${host}:${port}`;
  process.env.LIVE_URL = `ws://${host}:${port}${LIVE_PATH}`;
  idp = await createLocalIdp(url);
  const queue = createLocalQueue({
    name: 'deliveries', baseUrl: url, region: process.env.AWS_REGION,
    handler: () => loadHandler('events/deliver') as unknown as Promise<SqsHandler>,
    visibilityTimeoutSeconds: DELIVERY_QUEUE.visibilityTimeoutSeconds, maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
    batchSize: DELIVERY_QUEUE.batchSize, timeScale: opts.deliveryTimeScale ?? Number(process.env.DELIVERY_TIME_SCALE ?? 1),
  });
  Object.assign(process.env, {
    SQS_ENDPOINT: queue.endpoint, DELIVERY_QUEUE_URL: queue.url, DASHBOARD_URL: process.env.DASHBOARD_URL ?? url,
    ...(opts.allowLoopbackWebhooks ? { ALLOW_LOOPBACK_WEBHOOKS: '1' } : {}),
  });
  if (opts.dashboard) {
    dashboard = dashboardHandler(opts.dashboard, {
      issuer: idp.issuer, clientId: idp.clientId, apiUrl: url, liveUrl: process.env.LIVE_URL ?? null,
      widgetOrigin: opts.dashboard.widgetOrigin ?? url,
    });
  }
  // As the HTTP API authorizer: signature against the JWKS, iss, aud or client_id, exp (required), nbf.
  verifier = JwtVerifier.create({
    issuer: idp.issuer,
    audience: null,
    jwksUri: idp.jwksUri,
    customJwtCheck: ({ payload }) => {
      if (payload.exp === undefined) throw new Error('token has no exp');
      const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if (!aud.includes(idp.clientId) && payload.client_id !== idp.clientId) throw new Error('token is for another audience');
    },
  }, {
    // aws-jwt-verify's own fetcher speaks https only; this one fetches the local issuer's JWKS over http.
    jwksCache: new SimpleJwksCache({
      fetcher: { fetch: async (uri: string) => { fetches++; return (await fetch(uri)).arrayBuffer(); } },
    }),
  });
  await verifier.hydrate();

  return {
    url, port, idp, dynamo, dynamodbEndpoint, queue,
    jwksFetches: () => fetches,
    async stop() {
      await queue.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dynamo?.stop();
    },
  };
}
