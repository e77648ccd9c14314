import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/core/log.ts';
import type { AttemptOutcome, QueueMessage } from '#shared/domain/events-out/deliveries.ts';
import { observed } from './observe.ts';

// The edge of an SQS consumer (event source with ReportBatchItemFailures): one attempt per record,
// all records of a batch at once. A record reported as failed stays in the queue and comes back
// after the visibility its attempt set; an unexpected error leaves it for the queue's own
// visibility timeout, and after maxReceiveCount receives it goes to the DLQ.

export function queueHandler(fn: (m: QueueMessage) => Promise<AttemptOutcome>) {
  return observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failed: string[] = [];
    await Promise.all(event.Records.map(async (r) => {
      try {
        const { outcome, note } = await fn({ messageId: r.messageId, receiptHandle: r.receiptHandle, body: r.body });
        if (note) {
          const { message, ...detail } = note;
          logger.warn(message, detail);
        }
        if (outcome === 'retry') failed.push(r.messageId);
      } catch (e) {
        logger.error('delivery attempt failed unexpectedly', { messageId: r.messageId, receiveCount: r.attributes.ApproximateReceiveCount, error: e as Error });
        failed.push(r.messageId);
      }
    }));
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  });
}

/** An SQS consumer whose records each run `fn` on their body; a record that throws is reported and comes back. */
export function recordHandler(fn: (body: string) => Promise<unknown>) {
  return observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failed: string[] = [];
    await Promise.all(event.Records.map(async (r) => {
      try {
        await fn(r.body);
      } catch (e) {
        logger.error('queue record failed', { messageId: r.messageId, receiveCount: r.attributes.ApproximateReceiveCount, error: e as Error });
        failed.push(r.messageId);
      }
    }));
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  });
}
