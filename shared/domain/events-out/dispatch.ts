import { EVENT_TYPES, type DomainEvent, type OutboxEvent } from '#shared/core/vocabulary.ts';
import { emailQueue } from '#shared/data/delivery-queue.ts';
import { fanOut } from './deliveries.ts';
import { closeCustomerSockets, closeRotatedOut, pushLive } from '#shared/domain/handoff/live.ts';
import { indexQueue } from '#shared/data/index-queue.ts';

const isDomainEvent = (e: OutboxEvent): e is DomainEvent => (EVENT_TYPES as readonly string[]).includes(e.type);

/**
 * The one consumer of the event outbox: each event goes to the live connections that see it and
 * is fanned out to the integrations that take it; a signal for the service itself (a widget key
 * rotated, content to embed, an email to send) is acted on here and goes nowhere else: content
 * changes queue their tenant for the indexer, once per tenant per batch. Returns the index of the first item whose
 * handling failed (it and those after it are retried), or -1. Live pushes are best effort.
 */
export async function dispatchEvents(items: OutboxEvent[]): Promise<number> {
  await pushLive(items.filter(isDomainEvent));
  const queued = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    try {
      if (isDomainEvent(item)) await fanOut(item);
      else if (item.type === 'widget_key.rotated') await closeRotatedOut(item.tenantId);
      else if (item.type === 'content.changed' && !queued.has(item.tenantId)) {
        await indexQueue.send([item.tenantId]);
        queued.add(item.tenantId);
      }
      else if (item.type === 'customer.erased') await closeCustomerSockets(item.tenantId, item.data.conversationIds as string[]);
      else if (item.type === 'email.send') await emailQueue.send({ tenantId: item.tenantId, ...(item.data as { conversationId: string; messageId: string }) });
    } catch {
      return i;
    }
  }
  return -1;
}
