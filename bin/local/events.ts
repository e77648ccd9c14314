import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { routeKey, type Route } from '#shared/routes.ts';

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

export function v2Event(input: EventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const { route, params = {}, query = {}, claims } = input;
  const path = route.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? ''));
  const rawQueryString = new URLSearchParams(query).toString();
  const body = input.body === undefined ? undefined : typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  const headers: Record<string, string> = {
    host: '127.0.0.1', 'user-agent': 'bench',
    ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
    ...input.headers,
  };
  const now = new Date();
  return {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: path,
    rawQueryString,
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: { ...query } } : {}),
    ...(Object.keys(params).length ? { pathParameters: { ...params } } : {}),
    requestContext: {
      accountId: '000000000000', apiId: 'local', domainName: '127.0.0.1', domainPrefix: 'local',
      http: { method: route.method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(), routeKey: routeKey(route), stage: '$default',
      time: now.toUTCString(), timeEpoch: now.getTime(),
      ...(claims ? { authorizer: { jwt: { claims, scopes: claims.scope ? claims.scope.split(' ') : [] }, principalId: '', integrationLatency: 0 } } : {}),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
}

export function lambdaContext(route: Route, timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  const name = route.handler.replace(/\//g, '-');
  return {
    callbackWaitsForEmptyEventLoop: false, functionName: name, functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`, memoryLimitInMB: '1024',
    awsRequestId: randomUUID(), logGroupName: `/aws/lambda/${name}`, logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined, fail: () => undefined, succeed: () => undefined,
  };
}
