import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { OutboxEvent } from '#shared/core/vocabulary.ts';
import { logger } from '#shared/core/log.ts';
import { observed } from './observe.ts';

// The edge of the table stream's consumer: event items' new images in, the outbox's events out, and
// partial-batch failures reported by sequence number so that only the rest of the batch is retried.

/**
 * `fn` returns the index of the first event it could not finish, or -1. `goOn` says whether there
 * is time to start another: with less than `marginMs` left, `fn` hands the rest back, so a batch is
 * never cut off by the function's timeout (the rest comes back as a partial failure: progress).
 */
export function streamHandler(fn: (events: OutboxEvent[], goOn: () => boolean) => Promise<number>, marginMs = 0) {
  return observed(async (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
    const goOn = () => (context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY) > marginMs;
    const records = event.Records.filter((r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage);
    const list = records.map(
      (r) => (unmarshall(r.dynamodb!.NewImage as Record<string, AttributeValue>) as { event: OutboxEvent }).event,
    );
    let failedAt: number;
    try {
      failedAt = await fn(list, goOn);
    } catch (e) {
      logger.error('event dispatch failed', e as Error);
      failedAt = 0;
    }
    const first = failedAt >= 0 ? records[failedAt]?.dynamodb?.SequenceNumber : undefined;
    if (first) logger.warn('event dispatch will be retried', { from: first, eventId: list[failedAt]?.id });
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  });
}
