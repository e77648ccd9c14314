import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';

// Customers' messages the assistant did not answer well, kept as they happen so that
// GET /nlu/unanswered reads one partition range instead of every conversation: one item per user
// message that got the fallback, an answer under 0.5 confidence, or belongs to a conversation rated
// 1 or 2. The sort key starts with the day, so a period is one Query, newest first. A message the
// team taught (POST /nlu/examples with its messageId) is marked `taughtBy` the example and left out
// of the list until that example is taken back.

/** `handed_over` / `said_wrong`: a confident answer the customer at once handed over, or called wrong (shared/domain/unanswered-marks.ts). */
export type UnansweredReason = 'fallback' | 'low_confidence' | 'rated_low' | 'handed_over' | 'said_wrong';
export interface Unanswered {
  message: string;
  confidence: number;
  conversationId: string;
  messageId: string;
  createdAt: string;
  reasons: UnansweredReason[];
}

/** Kept a little longer than the longest period a request may ask for (366 days). */
const TTL_DAYS = 400;

const FIELDS = ['message', 'confidence', 'conversationId', 'messageId', 'createdAt', 'reasons'] as const;

export const unansweredRepo = {
  /** The newest `cap` items of the days [from, to]: one Query, paged past 1 MB. */
  async read(tenantId: string, from: string, to: string, cap: number): Promise<Unanswered[]> {
    const out: Unanswered[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
          ExpressionAttributeValues: { ':p': keys.unansweredPartition(tenantId), ':a': `${from}#`, ':b': `${to}#~` },
          FilterExpression: 'attribute_not_exists(#taughtBy)',
          ProjectionExpression: FIELDS.map((f) => `#${f}`).join(', '),
          ExpressionAttributeNames: { ...Object.fromEntries(FIELDS.map((f) => [`#${f}`, f])), '#taughtBy': 'taughtBy' },
          ScanIndexForward: false,
          Limit: cap - out.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      out.push(...((r.Items ?? []) as Unanswered[]));
      start = r.LastEvaluatedKey;
    } while (start && out.length < cap);
    return out;
  },

  /** The example that taught this message, if its item exists: `null` when it is not marked, `undefined` when there is no item. */
  async taughtBy(tenantId: string, createdAt: string, messageId: string): Promise<string | null | undefined> {
    const r = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.unanswered(tenantId, createdAt, messageId),
        ConsistentRead: true,
      }),
    );
    return r.Item ? ((r.Item.taughtBy as string | undefined) ?? null) : undefined;
  },

  /** The whole item of a message (what `tx.put` writes). */
  item(tenantId: string, u: Unanswered): Record<string, unknown> & { pk: string; sk: string } {
    const expires = Math.floor(Date.parse(u.createdAt) / 1000) + TTL_DAYS * 86_400;
    return {
      ...keys.unanswered(tenantId, u.createdAt, u.messageId),
      type: 'unanswered',
      ...u,
      [TTL_ATTRIBUTE]: expires,
    };
  },

  tx: {
    /** Marks an existing item as taught by `exampleId` (fails if the item went away meanwhile). */
    mark(tenantId: string, createdAt: string, messageId: string, exampleId: string): TxItem {
      return {
        Update: {
          Key: keys.unanswered(tenantId, createdAt, messageId),
          UpdateExpression: 'SET taughtBy = :e',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':e': exampleId },
        },
      };
    },
    /** Takes the mark of `exampleId` off (fails if another example marked it meanwhile). */
    unmark(tenantId: string, createdAt: string, messageId: string, exampleId: string): TxItem {
      return {
        Update: {
          Key: keys.unanswered(tenantId, createdAt, messageId),
          UpdateExpression: 'REMOVE taughtBy',
          ConditionExpression: 'taughtBy = :e',
          ExpressionAttributeValues: { ':e': exampleId },
        },
      };
    },
    /** Writes the item's fields; a `taughtBy` mark it has stays (a rating that marks it again does not un-teach it). */
    put(tenantId: string, u: Unanswered): TxItem {
      const { pk, sk, ...fields } = unansweredRepo.item(tenantId, u);
      const names = Object.keys(fields);
      return {
        Update: {
          Key: { pk, sk },
          UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
          ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:f${i}`, fields[n]])),
        },
      };
    },
    remove(tenantId: string, createdAt: string, messageId: string): TxItem {
      return { Delete: { Key: keys.unanswered(tenantId, createdAt, messageId) } };
    },
  },
};
