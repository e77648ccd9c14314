import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import type { Conversation } from './conversations.ts';
import { clean, keys, type Key } from './keys.ts';
import { labelKey } from './labels.ts';
import { queryAll } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';

// Retention: a tenant that keeps conversations `days` days is registered in one partition; the
// retention job finds its conversations created before the cutoff (gsi1 sorts by creation) and
// stamps the table's TTL attribute on every item of each idle one without an unclosed ticket, so
// that DynamoDB's TTL deletes them. The per-day stats items never carry the attribute, so past
// periods' KPIs stay.

export interface RetentionEntry {
  tenantId: string;
  days: number;
}

const isConditionFailure = (e: unknown) => e instanceof ConditionalCheckFailedException;

/** Sets the TTL attribute on an item that still exists; one gone already is fine. */
async function stamp(key: Key, expiresAt: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #ttl = :e',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':e': expiresAt },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

async function inChunks<T>(list: T[], n: number, f: (x: T) => Promise<void>) {
  for (let i = 0; i < list.length; i += n) await Promise.all(list.slice(i, i + n).map(f));
}

export const retentionRepo = {
  async tenants(): Promise<RetentionEntry[]> {
    const items = await queryAll({ partition: { name: 'pk', value: keys.retentionPartition() } });
    return items.map((i) => ({ tenantId: i.tenantId as string, days: i.days as number }));
  },

  /** A page of the tenant's conversations created before `cutoff`, oldest first (gsi1). */
  async createdBefore(tenantId: string, cutoff: string, limit: number, start?: Record<string, unknown>) {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p AND gsi1sk < :c',
        ExpressionAttributeValues: { ':p': keys.conversationsIndex(tenantId).gsi1pk, ':c': cutoff },
        ScanIndexForward: true,
        Limit: limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    return { items: (r.Items ?? []).map((i) => clean<Conversation>(i)), next: r.LastEvaluatedKey };
  },

  /**
   * Stamps the conversation's items to expire when it outlived `keepMs` (a moment past) when, read now, it was last active
   * before `cutoff` and has no unclosed ticket: its messages and references, its (closed) tickets
   * with their trails and number items, its labels' entries, its email links, its unanswered
   * entries. The conversation item goes last, on the condition that it did not change meanwhile,
   * so a customer who came back keeps it (activity takes the stamp off: conversationsRepo.tx.update).
   */
  async expire(tenantId: string, conversationId: string, cutoff: string, keepMs: number): Promise<boolean> {
    const part = await queryAll({
      partition: { name: 'pk', value: keys.conversationPartition(tenantId, conversationId) },
      consistent: true,
    });
    const convItem = part.find((i) => i.sk === 'CONV');
    if (!convItem) return false;
    const conv = clean<Conversation>(convItem);
    if (conv.unclosedTickets > 0 || conv.updatedAt >= cutoff) return false;
    const expiresAt = Math.floor((Date.parse(conv.updatedAt) + keepMs) / 1000);
    const ticketIds = part.filter((i) => (i.sk as string).startsWith('TICKET#')).map((i) => i.ticketId as string);
    const tickets = await Promise.all(
      ticketIds.map((id) =>
        queryAll({ partition: { name: 'pk', value: keys.ticket(tenantId, id).pk }, consistent: true }),
      ),
    );
    const ticketItems = tickets.flat();
    if (ticketItems.some((i) => i.sk === 'TICKET' && i.status !== 'closed')) return false;
    const others: Key[] = [
      ...part.filter((i) => i !== convItem).map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
      ...ticketItems.map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
      ...ticketItems
        .filter((i) => i.sk === 'TICKET' && typeof i.number === 'number')
        .map((i) => keys.ticketNumber(tenantId, i.number as number)),
      ...(conv.labels ?? []).map((l) => keys.labelled(tenantId, labelKey(l), conv.createdAt, conv.id)),
      ...(conv.visitor?.email ? [keys.customerEmailLink(tenantId, conv.visitor.email, conv.id)] : []),
      ...part
        .filter((i) => i.type === 'message' && i.role === 'user')
        .map((i) => keys.unanswered(tenantId, i.createdAt as string, i.id as string)),
    ];
    await inChunks(others, 25, (k) => stamp(k, expiresAt));
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.conversation(tenantId, conversationId),
          UpdateExpression: 'SET #ttl = :e',
          ConditionExpression: 'updatedAt = :u AND unclosedTickets = :zero',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':e': expiresAt, ':u': conv.updatedAt, ':zero': 0 },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  },

  tx: {
    /** Registers the tenant's retention in days, or takes it off (null: keep everything). */
    register(tenantId: string, days: number | null): TxItem {
      return days === null
        ? { Delete: { Key: keys.retention(tenantId) } }
        : { Put: { Item: { ...keys.retention(tenantId), type: 'retention', tenantId, days } } };
    },
  },
};
