import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '#shared/core/log.ts';
import { metrics } from '#shared/core/metrics.ts';

// What every function does around its invocation, HTTP or not: the Lambda context (request id,
// function name, cold start) on every log line, the keys of the previous invocation dropped, and
// the metrics it counted published when it ends, on success or error.

export const observability = () => [injectLambdaContext(logger, { resetKeys: true }), logMetrics(metrics)];

/** A non-HTTP handler (WebSocket, stream, queue) with the same observability as the HTTP kit's. */
export const observed = <E, R>(fn: (event: E, context: Context) => Promise<R>) =>
  middy(fn).use(observability()) as unknown as (event: E, context?: Context) => Promise<R>;
