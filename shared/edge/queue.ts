import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/core/log.ts';
import type { AttemptOutcome, QueueMessage } from '#shared/domain/events-out/deliveries.ts';
import { observed } from './observe.ts';
import { clock } from '#shared/core/clock.ts';

// The edge of the delivery queue's consumer (SQS FIFO, event source with ReportBatchItemFailures).
// A batch may hold several message groups (one per endpoint); groups run side by side, and a
// group's records one after the other in the queue's order. When one comes back for a retry, the
// records after it in its group are not attempted: they are reported as failed and held for the
// same time, so they come back behind it, in order. An unexpected error leaves the record (and
// those after it) for the queue's own visibility timeout; after maxReceiveCount receives a message
// goes to the DLQ. No attempt starts unless it can end before the function's timeout: the records
// left over come back at once.

export interface OrderedQueueOptions {
  /** Sets a received message's visibility (ChangeMessageVisibility). */
  hold: (receiptHandle: string, seconds: number) => Promise<void>;
  /** The longest one attempt takes: none starts with less time than this left. */
  attemptMs: () => number;
}

export function queueHandler(fn: (m: QueueMessage) => Promise<AttemptOutcome>, o: OrderedQueueOptions) {
  return observed(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const failed: string[] = [];
    const groups = new Map<string, SQSRecord[]>();
    for (const r of event.Records) {
      const g = r.attributes.MessageGroupId ?? r.messageId;
      groups.set(g, [...(groups.get(g) ?? []), r]);
    }
    const remaining = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    /** Records not attempted now: reported failed, back after `seconds` (undefined: the queue's visibility timeout). */
    const putBack = async (records: SQSRecord[], seconds: number | undefined) => {
      for (const r of records) {
        failed.push(r.messageId);
        if (seconds !== undefined) {
          await o.hold(r.receiptHandle, seconds).catch((e: unknown) =>
            logger.error('could not hold a delivery behind the one before it', {
              messageId: r.messageId,
              error: e as Error,
            }),
          );
        }
      }
    };
    await Promise.all(
      [...groups.values()].map(async (records) => {
        for (const [i, r] of records.entries()) {
          if (i > 0 && remaining() < o.attemptMs()) return putBack(records.slice(i), 0);
          try {
            const { outcome, retryAfterSeconds, note } = await fn({
              messageId: r.messageId,
              receiptHandle: r.receiptHandle,
              body: r.body,
            });
            if (note) {
              const { message, ...detail } = note;
              logger.warn(message, detail);
            }
            if (outcome === 'retry') {
              failed.push(r.messageId);
              return putBack(records.slice(i + 1), retryAfterSeconds);
            }
          } catch (e) {
            logger.error('delivery attempt failed unexpectedly', {
              messageId: r.messageId,
              receiveCount: r.attributes.ApproximateReceiveCount,
              error: e as Error,
            });
            return putBack(records.slice(i), undefined);
          }
        }
      }),
    );
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
    const deadline =
      clock.now() + Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? defaultMs + marginMs) - marginMs);
    const byTenant = new Map<string, string[]>();
    for (const r of event.Records) {
      const m = parse(r.body);
      // A malformed message would fail forever: it is logged and dropped.
      if (!m) {
        logger.error('index message dropped: not a tenant', { messageId: r.messageId });
        continue;
      }
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
    await Promise.all(
      event.Records.map(async (r) => {
        try {
          await fn(r.body);
        } catch (e) {
          logger.error('queue record failed', {
            messageId: r.messageId,
            receiveCount: r.attributes.ApproximateReceiveCount,
            error: e as Error,
          });
          failed.push(r.messageId);
        }
      }),
    );
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  });
}
