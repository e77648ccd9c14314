import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { STATUS_CODES } from 'node:http';
import type { AppError } from '#shared/core/errors.ts';

/** What a handler returns; the kit serialises it and adds the common headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function json(reply: Reply, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: reply.status,
    headers: {
      ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }),
      'x-request-id': requestId,
      ...reply.headers,
    },
    ...(reply.body === undefined ? {} : { body: JSON.stringify(reply.body) }),
  };
}

/** RFC 9457 problem document with our extension members: code, requestId, errors (docs/API.md, Errors). */
export function problem(err: AppError, requestId: string): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', 'x-request-id': requestId };
  if (err.extra.retryAfter !== undefined) headers['retry-after'] = String(err.extra.retryAfter);
  return {
    statusCode: err.status,
    headers,
    body: JSON.stringify({
      type: 'about:blank',
      title: STATUS_CODES[err.status] ?? 'Error',
      status: err.status,
      detail: err.message,
      code: err.code,
      requestId,
      ...(err.extra.errors ? { errors: err.extra.errors } : {}),
    }),
  };
}
