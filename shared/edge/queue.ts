import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
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

/**
 * The index queue's consumer: its messages only name a tenant, so each tenant of a batch gets one
 * pass, one tenant after the other (embedding takes the whole CPU). A pass that ran out of time
 * queues its tenant again; a failed one leaves that tenant's messages for a retry.
 */
export function tenantQueueHandler(
  parse: (body: string) => { tenantId: string } | null,
  pass: (tenantId: string, deadline: number) => Promise<{ remaining: number }>,
  requeue: (tenantIds: string[]) => Promise<void>,
  { marginMs = 15_000, defaultMs = 60_000 } = {},
) {
  return observed(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deadline = Date.now() + Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? defaultMs + marginMs) - marginMs);
    const byTenant = new Map<string, string[]>();
    for (const r of event.Records) {
      const m = parse(r.body);
      // A malformed message would fail forever: it is logged and dropped.
      if (!m) { logger.error('index message dropped: not a tenant', { messageId: r.messageId }); continue; }
      byTenant.set(m.tenantId, [...(byTenant.get(m.tenantId) ?? []), r.messageId]);
    }
    const failed: string[] = [];
    const again: string[] = [];
    for (const [tenantId, ids] of byTenant) {
      try {
        if ((await pass(tenantId, deadline)).remaining > 0) again.push(tenantId);
      } catch (e) {
        logger.error('indexing failed', { tenantId, error: e as Error });
        failed.push(...ids);
      }
    }
    if (again.length) await requeue(again);
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
