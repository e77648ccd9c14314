import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { queryAll } from './lists.ts';
import { statsRepo, utcDay } from './stats.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { transact, TxConditionFailed, type TxItem } from './tx.ts';
import type { Conversation } from './conversations.ts';

// "Resolved by the assistant": every customer turn puts its conversation in the 10-minute slot in
// which it becomes due (30 minutes after the message); the scheduled job reads the slots that are
// over, judges each conversation once and adds it to the day counter of the day it was created.
// The entries hold ids only and expire 12 hours after they were due (the job looks 3 hours back; a
// slot it never reached is dropped, and a deleted tenant's entries go within the day).

export const RESOLVE_AFTER_MS = 30 * 60_000;
export const SLOT_MS = 10 * 60_000;
const KEEP_SECONDS = 12 * 3600;

/** The slot an instant falls in: its start, to the minute ("2026-11-28T15:40"). */
export const slotOf = (ms: number) => new Date(Math.floor(ms / SLOT_MS) * SLOT_MS).toISOString().slice(0, 16);

export interface DueEntry {
  tenantId: string;
  conversationId: string;
  lastAt: string;
  slot: string;
}

const deleteDue = (e: DueEntry): TxItem => ({
  Delete: { Key: keys.resolutionDue(e.slot, e.tenantId, e.conversationId) },
});

export const resolutionsRepo = {
  tx: {
    /** The conversation becomes due 30 minutes after `lastAt`, its latest customer message. */
    due(tenantId: string, conversationId: string, lastAt: string): TxItem {
      const dueMs = Date.parse(lastAt) + RESOLVE_AFTER_MS;
      return {
        Put: {
          Item: {
            ...keys.resolutionDue(slotOf(dueMs), tenantId, conversationId),
            type: 'resolutionDue',
            tenantId,
            conversationId,
            lastAt,
            [TTL_ATTRIBUTE]: Math.floor(dueMs / 1000) + KEEP_SECONDS,
          },
        },
      };
    },
  },

  /** Every entry of one slot. */
  async dueIn(slot: string): Promise<DueEntry[]> {
    const items = await queryAll({ partition: { name: 'pk', value: keys.resolutionDue(slot, '', '').pk } });
    return items.map((i) => ({
      tenantId: i.tenantId as string,
      conversationId: i.conversationId as string,
      lastAt: i.lastAt as string,
      slot,
    }));
  },

  /** The entry is judged and not counted. */
  async drop(e: DueEntry): Promise<void> {
    await db.send(
      new DeleteCommand({ TableName: tableName(), Key: keys.resolutionDue(e.slot, e.tenantId, e.conversationId) }),
    );
  },

  /**
   * Counts the conversation once, on the day it was created: conditional on its having no ticket,
   * no later customer message and no count yet (false when a condition failed: nothing counted).
   */
  async count(e: DueEntry, conv: Conversation, at: string): Promise<boolean> {
    try {
      await transact([
        {
          Update: {
            Key: keys.conversation(e.tenantId, e.conversationId),
            UpdateExpression: 'SET #counted = :at',
            ConditionExpression:
              'attribute_exists(pk) AND attribute_not_exists(#counted) AND attribute_not_exists(#ticket) AND #last = :last',
            ExpressionAttributeNames: {
              '#counted': 'resolutionCountedAt',
              '#ticket': 'latestTicketId',
              '#last': 'lastCustomerMessageAt',
            },
            ExpressionAttributeValues: { ':at': at, ':last': e.lastAt },
          },
        },
        statsRepo.tx.addDay(e.tenantId, utcDay(conv.createdAt), conv.id, { assistantResolutions: 1 }),
        deleteDue(e),
      ]);
      return true;
    } catch (err) {
      if (err instanceof TxConditionFailed) {
        await resolutionsRepo.drop(e);
        return false;
      }
      throw err;
    }
  },
};
