import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { DomainEvent } from '#shared/core/vocabulary.ts';
import { logger } from './log.ts';

// The edge of the table stream's consumer: event items' new images in, the domain events out, and
// partial-batch failures reported by sequence number so that only the rest of the batch is retried.

export function streamHandler(fn: (events: DomainEvent[]) => Promise<void>) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const records = event.Records.filter((r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage);
    const list = records.map((r) => (unmarshall(r.dynamodb!.NewImage as Record<string, AttributeValue>) as { event: DomainEvent }).event);
    try {
      await fn(list);
      return { batchItemFailures: [] };
    } catch (e) {
      logger.error('event dispatch failed', e as Error);
      const first = records[0]?.dynamodb?.SequenceNumber;
      return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
    }
  };
}
