import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config, localDatabaseCredentials } from '#shared/core/config.ts';
import { AppError, Unavailable } from '#shared/core/errors.ts';

// One client per container, made at first use. Timeouts are bounded so that an unreachable
// database answers 503 within seconds instead of hanging until the Lambda times out.
const local = config.dynamodbEndpoint !== undefined;

const base = new DynamoDBClient({
  region: config.region,
  ...(local
    ? {
        endpoint: config.dynamodbEndpoint,
        // Read at the first call, once the local runtime has set TABLE_NAME (a test may import this before).
        credentials: async () => localDatabaseCredentials(config.tableName),
      }
    : {}),
  // Worst case of one call: 3 attempts x 2 s + backoff, about 6.5 s, inside the 10 s function timeout, so
  // the handler itself answers 503 (a Lambda timeout would be the gateway's bare 503 instead).
  // throwOnRequestTimeout: without it the SDK only logs a warning when requestTimeout passes and
  // keeps waiting (measured: 10 s against a hung DynamoDB).
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
});

/**
 * Round trips to DynamoDB made by this container, and the time at least one was in flight (so
 * parallel calls count once, as they do in the handler's latency); read by the benchmark.
 */
export const roundTrips = { count: 0, ms: 0 };
let inFlight = 0;
let busySince = 0;
base.middlewareStack.add(
  (next) => async (args) => {
    roundTrips.count++;
    if (inFlight++ === 0) busySince = performance.now();
    try {
      return await next(args);
    } finally {
      if (--inFlight === 0) roundTrips.ms += performance.now() - busySince;
    }
  },
  { step: 'initialize', name: 'countRoundTrips' },
);

/**
 * Capacity units this container consumed, as DynamoDB bills them on demand (read and write
 * request units), summed from `ReturnConsumedCapacity: TOTAL`. Asked for only with env
 * DYNAMODB_CONSUMED_CAPACITY=1 (the cost benchmark): it adds bytes to every answer.
 */
export const consumedCapacity = { read: 0, write: 0, calls: 0 };
/** Told of each call's units and input, so that the benchmark can say which items cost what. */
export const capacityListeners: Array<
  (command: string, input: unknown, units: { read: number; write: number }) => void
> = [];
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);
type Consumed = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
if (config.consumedCapacity) {
  base.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args).catch((e: unknown) => {
        // A refused condition still bills the write (one unit for an item up to 1 KB); the error carries no figure.
        if ((e as Error).name === 'ConditionalCheckFailedException') {
          consumedCapacity.write += 1;
          for (const l of capacityListeners) l(`${context.commandName} (refused)`, args.input, { read: 0, write: 1 });
        }
        throw e;
      });
      const c = (out.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
      const read = READS.has(context.commandName ?? '');
      consumedCapacity.calls++;
      const units = { read: 0, write: 0 };
      for (const u of c === undefined ? [] : Array.isArray(c) ? c : [c]) {
        // A write's condition or returned values bill as write units; a split answer names both.
        if (u.ReadCapacityUnits !== undefined || u.WriteCapacityUnits !== undefined) {
          units.read += u.ReadCapacityUnits ?? 0;
          units.write += u.WriteCapacityUnits ?? 0;
        } else if (read) units.read += u.CapacityUnits ?? 0;
        else units.write += u.CapacityUnits ?? 0;
      }
      consumedCapacity.read += units.read;
      consumedCapacity.write += units.write;
      for (const l of capacityListeners) l(context.commandName ?? '', args.input, units);
      return out;
    },
    { step: 'initialize', name: 'sumConsumedCapacity' },
  );
}

export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

export const tableName = () => config.tableName;

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ServiceUnavailable',
  'InternalServerError',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/** True when an SDK error means the database could not serve us (outage, timeout, throttling). */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  if (e instanceof AppError) return false;
  if (UNREACHABLE.has(e.code ?? '') || UNAVAILABLE_NAMES.has(e.name)) return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  return e.cause !== undefined && isUnavailable(e.cause);
}

/** Maps outage errors to 503 UNAVAILABLE; everything else passes through. */
export const asUnavailable = (err: unknown): unknown => (isUnavailable(err) ? new Unavailable() : err);

/**
 * A conditional write: its output, or null when its condition failed (nothing was written). For
 * the writes where a failed condition is an answer (taken, gone, moved on), not an error.
 */
export async function conditional<T>(write: Promise<T>): Promise<T | null> {
  try {
    return await write;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return null;
    throw e;
  }
}
