import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditional, db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { closeConnection } from './sockets.ts';
import { queryAll } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { transact, TxConditionFailed, type TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

// Live-channel state: one item per open connection in the partition of what it receives (its
// conversation, or the tenant's members), with a count per conversation and per member that the
// connect guards; a lookup by connection id (what $disconnect has) that describes it fully; and
// one-time tickets. Customer connections are also listed per tenant on gsi1 (key rotation).

export type LiveConnection =
  | { connectionId: string; kind: 'member'; userId: string }
  | { connectionId: string; kind: 'customer'; conversationId: string; keyHash: string };

/** API Gateway keeps a WebSocket at most 2 hours; items outlive that a little, then expire. */
const CONNECTION_S = 2 * 3600 + 600;
const nowS = () => clock.seconds();

const partitionOf = (tenantId: string, c: { kind: 'member' } | { kind: 'customer'; conversationId: string }) =>
  c.kind === 'member' ? keys.liveMembers(tenantId).pk : keys.liveConversation(tenantId, c.conversationId).pk;
const countKey = (tenantId: string, c: LiveConnection) =>
  keys.liveCount(partitionOf(tenantId, c), c.kind === 'member' ? c.userId : undefined);

const toConnection = (i: Record<string, unknown>): LiveConnection =>
  i.kind === 'member'
    ? { connectionId: i.connectionId as string, kind: 'member', userId: i.userId as string }
    : {
        connectionId: i.connectionId as string,
        kind: 'customer',
        conversationId: i.conversationId as string,
        keyHash: i.keyHash as string,
      };

async function openIn(pk: string): Promise<LiveConnection[]> {
  const items = await queryAll({ partition: { name: 'pk', value: pk }, sk: { beginsWith: 'CONN#' }, consistent: true });
  const now = nowS();
  return items.filter((i) => (i[TTL_ATTRIBUTE] as number) > now).map(toConnection);
}

/** The count item moved by one; the increment holds only below `max`, or (a recount) when it still reads `seen`. */
const countAdd = (
  key: ReturnType<typeof keys.liveCount>,
  delta: number,
  guard?: { max: number } | { seen: number; set: number },
): TxItem => ({
  Update: {
    Key: key,
    ...(guard && 'seen' in guard
      ? {
          UpdateExpression: 'SET n = :set',
          ConditionExpression: 'attribute_not_exists(n) OR n = :seen',
          ExpressionAttributeValues: { ':set': guard.set, ':seen': guard.seen },
        }
      : {
          UpdateExpression: 'ADD n :d',
          ...(guard
            ? {
                ConditionExpression: 'attribute_not_exists(n) OR n < :max',
                ExpressionAttributeValues: { ':d': delta, ':max': guard.max },
              }
            : { ExpressionAttributeValues: { ':d': delta } }),
        }),
  },
});

export const liveRepo = {
  /**
   * Records a connection if its conversation or member has fewer than `max` open; false when full.
   * A count that drifted above the open connections (a lost $disconnect) is recounted once.
   */
  async connect(tenantId: string, c: LiveConnection, max: number): Promise<boolean> {
    const expires = nowS() + CONNECTION_S;
    const pk = partitionOf(tenantId, c);
    const items = (count: TxItem): TxItem[] => [
      {
        Put: {
          Item: {
            ...keys.liveConnection(pk, c.connectionId),
            type: 'liveConnection',
            ...c,
            [TTL_ATTRIBUTE]: expires,
            ...(c.kind === 'customer' ? { ...keys.liveCustomersIndex(tenantId), gsi1sk: c.connectionId } : {}),
          },
        },
      },
      {
        Put: {
          Item: {
            ...keys.liveConnectionLookup(c.connectionId),
            type: 'liveConnectionLookup',
            tenantId,
            ...c,
            [TTL_ATTRIBUTE]: expires,
          },
        },
      },
      count,
    ];
    try {
      await transact(items(countAdd(countKey(tenantId, c), 1, { max })));
      return true;
    } catch (e) {
      if (!(e instanceof TxConditionFailed)) throw e;
    }
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: countKey(tenantId, c), ConsistentRead: true }),
    );
    const seen = (r.Item?.n as number | undefined) ?? 0;
    const open = (await openIn(pk)).filter((o) =>
      c.kind === 'member' ? o.kind === 'member' && o.userId === c.userId : true,
    ).length;
    if (open >= max) return false;
    try {
      await transact(items(countAdd(countKey(tenantId, c), 0, { seen, set: open + 1 })));
      return true;
    } catch (e) {
      if (e instanceof TxConditionFailed) return false;
      throw e;
    }
  },

  /** Forgets a connection through its lookup, once: the count goes down only for the caller that removed the lookup. */
  async disconnect(connectionId: string): Promise<void> {
    const r = await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.liveConnectionLookup(connectionId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    const i = r.Attributes;
    if (!i) return;
    const tenantId = i.tenantId as string;
    const c = toConnection(i);
    await transact([
      { Delete: { Key: keys.liveConnection(partitionOf(tenantId, c), connectionId) } },
      countAdd(countKey(tenantId, c), -1),
    ]);
  },

  /** Closes a socket from the server's side and forgets it. */
  async drop(connectionId: string): Promise<void> {
    await closeConnection(connectionId);
    await liveRepo.disconnect(connectionId);
  },

  /** Who a connection is (its tenant and kind), from the lookup $disconnect uses; null when it is gone. */
  async lookup(connectionId: string): Promise<(LiveConnection & { tenantId: string }) | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.liveConnectionLookup(connectionId) }));
    const i = r.Item;
    if (!i || (i[TTL_ATTRIBUTE] as number) <= nowS()) return null;
    return { ...toConnection(i), tenantId: i.tenantId as string };
  },

  /** The open sockets of one side: the tenant's members, or a conversation's customers (one strongly consistent Query). */
  async openOf(
    tenantId: string,
    side: { kind: 'member' } | { kind: 'customer'; conversationId: string },
  ): Promise<LiveConnection[]> {
    return openIn(partitionOf(tenantId, side));
  },

  /** Every customer socket of a tenant (gsi1, eventually consistent): what a key rotation sweeps. */
  async customers(tenantId: string): Promise<LiveConnection[]> {
    const items = await queryAll({
      index: 'gsi1',
      partition: { name: 'gsi1pk', value: keys.liveCustomersIndex(tenantId).gsi1pk },
    });
    return items.map(toConnection);
  },

  /** The open sockets of a conversation's customers and of the tenant's members: two strongly consistent Queries. */
  async receiversOf(tenantId: string, conversationId: string | null): Promise<LiveConnection[]> {
    const [members, customers] = await Promise.all([
      openIn(keys.liveMembers(tenantId).pk),
      conversationId ? openIn(keys.liveConversation(tenantId, conversationId).pk) : Promise.resolve([]),
    ]);
    return [...members, ...customers];
  },

  async putTicket(tenantId: string, hash: string, userId: string, expiresAt: number): Promise<void> {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.liveTicket(tenantId, hash), type: 'liveTicket', userId, [TTL_ATTRIBUTE]: expiresAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },

  /** Uses a ticket up: the user it was issued to, or null when unknown, used or expired. */
  async takeTicket(tenantId: string, hash: string): Promise<string | null> {
    const r = await conditional(
      db.send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.liveTicket(tenantId, hash),
          ReturnValues: 'ALL_OLD',
          ConditionExpression: 'attribute_exists(pk) AND #exp > :now',
          ExpressionAttributeNames: { '#exp': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': nowS() },
        }),
      ),
    );
    return (r?.Attributes?.userId as string | undefined) ?? null;
  },
};
