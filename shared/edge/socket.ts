import { AppError } from '#shared/core/errors.ts';
import { asUnavailable } from '#shared/data/client.ts';
import { logger } from '#shared/core/log.ts';
import { count } from '#shared/core/metrics.ts';
import { METRIC } from '#shared/core/metric-names.ts';
import { observed } from './observe.ts';

// The edge of the live channel's WebSocket routes. API Gateway completes a `$connect` on a 2xx
// result and otherwise refuses the upgrade with the result's status code.

export interface SocketEvent {
  requestContext: { connectionId: string; routeKey: string; requestId?: string };
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined> | null;
  /** A client's frame, on the routes its `action` selects. */
  body?: string | null;
}
export interface SocketResult {
  statusCode: number;
  body?: string;
}

export interface SocketContext {
  connectionId: string;
  query: Record<string, string | undefined>;
  origin: string | undefined;
  /** The frame's text on a message route; undefined on $connect and $disconnect. */
  body: string | undefined;
}

export function socketRoute(fn: (ctx: SocketContext) => Promise<void>) {
  return observed(async (event: SocketEvent): Promise<SocketResult> => {
    logger.appendKeys({ connectionId: event.requestContext.connectionId, route: event.requestContext.routeKey });
    const headers = event.headers ?? {};
    const origin = headers.origin ?? headers.Origin;
    try {
      await fn({
        connectionId: event.requestContext.connectionId,
        query: event.queryStringParameters ?? {},
        origin,
        body: event.body ?? undefined,
      });
      return { statusCode: 200 };
    } catch (e) {
      const err = asUnavailable(e);
      if (!(err instanceof AppError) || err.status >= 500) count(METRIC.serverErrors);
      if (err instanceof AppError)
        return { statusCode: err.status, body: JSON.stringify({ code: err.code, detail: err.message }) };
      logger.error('unhandled error', e as Error);
      return { statusCode: 500 };
    }
  });
}
