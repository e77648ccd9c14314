import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { clean, keys } from './keys.ts';
import { limitsRepo } from './limits.ts';
import { queryAll } from './lists.ts';
import { transact, type TxItem } from './tx.ts';

// Saved replies: the answers a team sends again and again. Access patterns:
// - every reply of a tenant (at most 500, the picker filters them in the browser): one Query of
//   `SAVEDREPLY#` in the tenant's partition;
// - one by id: GetItem;
// - a shortcut is unique per tenant: a guard item `REPLYSHORTCUT#<shortcut>` put with its reply.
// The tenant item's `savedReplyCount` tally holds the cap.

export interface SavedReply {
  id: string;
  shortcut: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

const asReply = (i: Record<string, unknown>): SavedReply => {
  const { id, shortcut, title, body, createdAt, updatedAt } = clean<SavedReply>(i);
  return { id, shortcut, title, body, createdAt, updatedAt };
};

const guardPut = (tenantId: string, r: SavedReply): TxItem => ({
  Put: {
    Item: { ...keys.savedReplyShortcut(tenantId, r.shortcut), type: 'savedReplyShortcut', savedReplyId: r.id },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const savedRepliesRepo = {
  /** Every reply of the tenant, by shortcut. */
  async list(tenantId: string): Promise<SavedReply[]> {
    const { pk, skPrefix } = keys.savedReplyPrefix(tenantId);
    const items = await queryAll({ partition: { name: 'pk', value: pk }, sk: { beginsWith: skPrefix } });
    return items.map(asReply).sort((a, b) => a.shortcut.localeCompare(b.shortcut));
  },

  async get(tenantId: string, id: string): Promise<SavedReply | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.savedReply(tenantId, id), ConsistentRead: true }),
    );
    return r.Item ? asReply(r.Item) : null;
  },

  /** Fails at index 1 (shortcut taken) or 2 (the tenant's cap). */
  async put(tenantId: string, r: SavedReply, max: number, audit: TxItem): Promise<void> {
    await transact([
      {
        Put: {
          Item: { ...keys.savedReply(tenantId, r.id), type: 'savedReply', ...r },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      guardPut(tenantId, r),
      limitsRepo.tx.tally(tenantId, 'savedReplyCount', 1, max),
      audit,
    ]);
  },

  /** A full replacement, conditional on the `updatedAt` read (index 0); a new shortcut moves the guard (index 1: taken). */
  async update(tenantId: string, before: SavedReply, after: SavedReply, audit: TxItem): Promise<void> {
    const items: TxItem[] = [
      {
        Put: {
          Item: { ...keys.savedReply(tenantId, after.id), type: 'savedReply', ...after },
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': before.updatedAt },
        },
      },
    ];
    if (before.shortcut !== after.shortcut) {
      items.push(guardPut(tenantId, after), { Delete: { Key: keys.savedReplyShortcut(tenantId, before.shortcut) } });
    }
    await transact([...items, audit]);
  },

  async remove(tenantId: string, r: SavedReply, audit: TxItem): Promise<void> {
    await transact([
      {
        Delete: {
          Key: keys.savedReply(tenantId, r.id),
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': r.updatedAt },
        },
      },
      { Delete: { Key: keys.savedReplyShortcut(tenantId, r.shortcut) } },
      limitsRepo.tx.tally(tenantId, 'savedReplyCount', -1),
      audit,
    ]);
  },
};
