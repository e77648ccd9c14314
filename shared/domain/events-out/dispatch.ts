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
 * changes queue their tenant for the indexer, once per tenant per batch. Live pushes are best effort.
 * A batch is handled in event-id order: a conversation's events come in that order already, and
 * events of different conversations written at nearly the same time (whose commits may finish in
 * either order) reach each endpoint's ordered queue as their ids say. Returns the index of the first
 * item, in the batch's own order, from which it must be handed over again (an item failed, or time
 * ran short (`goOn`), and it and the items not yet handled are retried), or -1.
 */
export async function dispatchEvents(items: OutboxEvent[], goOn: () => boolean = () => true): Promise<number> {
  await pushLive(items.filter(isDomainEvent));
  const queued = new Set<string>();
  const order = items
    .map((_, i) => i)
    .sort((a, b) => (items[a]!.id < items[b]!.id ? -1 : items[a]!.id > items[b]!.id ? 1 : a - b));
  for (const [k, i] of order.entries()) {
    // Out of time: the rest is handed back (the first event is always tried, so a batch moves on).
    if (k > 0 && !goOn()) return Math.min(...order.slice(k));
    const item = items[i]!;
    try {
      if (isDomainEvent(item)) await fanOut(item);
      else if (item.type === 'widget_key.rotated') await closeRotatedOut(item.tenantId);
      else if (item.type === 'content.changed' && !queued.has(item.tenantId)) {
        await indexQueue.send([item.tenantId]);
        queued.add(item.tenantId);
      } else if (item.type === 'customer.erased')
        await closeCustomerSockets(item.tenantId, item.data.conversationIds as string[]);
      else if (item.type === 'email.send')
        await emailQueue.send({
          tenantId: item.tenantId,
          ...(item.data as { conversationId: string; messageId: string }),
        });
      else if (item.type === 'invitation.send')
        await emailQueue.send({ tenantId: item.tenantId, invitationId: (item.data as { memberId: string }).memberId });
    } catch {
      // Handing over again is at least once: fan-out and the queues' consumers take repeats.
      return Math.min(...order.slice(k));
    }
  }
  return -1;
}
