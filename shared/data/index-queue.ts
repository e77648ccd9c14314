import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { config } from '#shared/core/config.ts';
import { sqs } from './delivery-queue.ts';

// The index queue (SQS): one message per tenant whose content changed; the indexer embeds what
// lacks a vector (see shared/domain/indexing/indexing.ts). A message says only which tenant: the
// indexer reads the tenant's content as it is when it runs, so messages are interchangeable and
// a duplicate or a retry costs one pass that finds nothing to do.

export interface IndexMessage {
  tenantId: string;
}

export const indexQueue = {
  /** One message per tenant, ten per SendMessageBatch; throws if any was refused. */
  async send(tenantIds: string[], delaySeconds = 0): Promise<void> {
    for (let i = 0; i < tenantIds.length; i += 10) {
      const r = await sqs().send(
        new SendMessageBatchCommand({
          QueueUrl: config.indexQueueUrl,
          Entries: tenantIds.slice(i, i + 10).map((tenantId, k) => ({
            Id: String(k),
            MessageBody: JSON.stringify({ tenantId } satisfies IndexMessage),
            MessageGroupId: tenantId,
            DelaySeconds: delaySeconds,
          })),
        }),
      );
      if (r.Failed?.length)
        throw new Error(
          `index queue refused ${r.Failed.length} message(s): ${r.Failed[0]!.Message ?? r.Failed[0]!.Code}`,
        );
    }
  },
};

export function parseIndexMessage(body: string): IndexMessage | null {
  try {
    const m = JSON.parse(body) as Partial<IndexMessage>;
    return typeof m.tenantId === 'string' && m.tenantId ? { tenantId: m.tenantId } : null;
  } catch {
    return null;
  }
}
