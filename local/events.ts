import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { routeKey, type Route } from '#shared/edge/route.ts';

// API Gateway HTTP API payload v2 events and Lambda contexts built without an HTTP request, in
// the shape the local runtime's server builds them: for benchmarks and tests that invoke a
// handler directly.

export interface EventInput {
  route: Route;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** Header names in lower case, as API Gateway passes them. */
  headers?: Record<string, string>;
  /** Serialised as JSON (content-type application/json) unless a string. */
  body?: unknown;
  /** JWT claims as the authorizer passes them (string values). */
  claims?: Record<string, string>;
}

/** The parts of a request that an event is made of; the server fills them from a real request. */
export interface EventParts {
  route: Route;
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  body?: string;
  isBase64Encoded: boolean;
  claims: Record<string, string> | null;
  sourceIp?: string;
  protocol?: string;
  domainName?: string;
}

/** The one builder of payload v2 events, used by the local runtime's server and by the benchmark. */
export function eventOf(p: EventParts): APIGatewayProxyEventV2WithJWTAuthorizer {
  const now = new Date();
  const domainName = p.domainName ?? '127.0.0.1';
  return {
    version: '2.0',
    routeKey: routeKey(p.route),
    rawPath: p.rawPath,
    rawQueryString: p.rawQueryString,
    ...(p.headers.cookie ? { cookies: p.headers.cookie.split(/;\s*/) } : {}),
    headers: p.headers,
    ...(Object.keys(p.query).length ? { queryStringParameters: p.query } : {}),
    ...(Object.keys(p.params).length ? { pathParameters: p.params } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: 'local',
      http: {
        method: p.route.method,
        path: p.rawPath,
        protocol: p.protocol ?? 'HTTP/1.1',
        sourceIp: p.sourceIp ?? '127.0.0.1',
        userAgent: p.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKey(p.route),
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(p.claims
        ? {
            authorizer: {
              jwt: { claims: p.claims, scopes: p.claims.scope ? p.claims.scope.split(' ') : [] },
              principalId: '',
              integrationLatency: 0,
            },
          }
        : {}),
    },
    ...(p.body !== undefined ? { body: p.body } : {}),
    isBase64Encoded: p.isBase64Encoded,
  } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
}

/** An event without an HTTP request, for benchmarks and tests that invoke a handler directly. */
export function v2Event(input: EventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const { route, params = {}, query = {}, claims } = input;
  const rawPath = route.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? ''));
  const body =
    input.body === undefined ? undefined : typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  const headers: Record<string, string> = {
    host: '127.0.0.1',
    'user-agent': 'bench',
    ...(body !== undefined
      ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
      : {}),
    ...input.headers,
  };
  return eventOf({
    route,
    rawPath,
    rawQueryString: new URLSearchParams(query).toString(),
    headers,
    query: { ...query },
    params: { ...params },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
    claims: claims ?? null,
  });
}

/** A Lambda context for the function of a route, a WebSocket route or a stream trigger (anything naming its handler). */
export function lambdaContext(fn: { handler: string }, timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  const name = fn.handler.replace(/\//g, '-');
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
