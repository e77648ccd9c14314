import { monotonicFactory } from 'ulid';
import type { EventType, InternalEventType, OutboxEvent } from '#shared/core/vocabulary.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

// The event outbox: every change that others hear of writes its event item in the same
// transaction as the change. The table's stream carries the item to the dispatcher; the item
// itself is kept a day, long enough for a stalled stream consumer to catch up.

/** The `type` attribute of event items: the stream trigger's filter matches it. */
export const EVENT_ITEM_TYPE = 'event';
const KEEP_S = 24 * 3600;
/**
 * Event ids rise in the order this instance makes them, also within a millisecond (a message and
 * the assistant's reply share their timestamp): a receiver may order by `webhook-id`.
 */
const eventUlid = monotonicFactory();

export const eventsRepo = {
  tx: {
    /** The event item of a change, in the change's transaction. */
    put<T extends Record<string, unknown>>(
      tenantId: string,
      type: EventType | InternalEventType,
      data: T,
      timestamp: string,
      conversationId?: string,
    ): TxItem {
      const event = {
        id: `evt_${eventUlid(Date.parse(timestamp))}`,
        type,
        timestamp,
        tenantId,
        data,
      } as OutboxEvent<T>;
      return {
        Put: {
          Item: {
            ...keys.event(tenantId, event.id, conversationId),
            type: EVENT_ITEM_TYPE,
            event,
            [TTL_ATTRIBUTE]: Math.floor(Date.parse(timestamp) / 1000) + KEEP_S,
          },
        },
      };
    },

    /**
     * Text the assistant answers from changed (`what`: intents, articles, examples, unanswered): the
     * dispatcher queues the tenant for the indexer, which embeds what lacks a vector. Always the
     * last item of its transaction, so the indexes of the items whose conditions may fail stay put.
     */
    contentChanged(tenantId: string, what: string): TxItem {
      return eventsRepo.tx.put(tenantId, 'content.changed', { what }, clock.iso());
    },
  },
};
