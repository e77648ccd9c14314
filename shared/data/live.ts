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

// A conversation's count item also marks each customer socket, `open#<connection id>` = when its
// item expires, so that one item tells whether the customer is live: a detail that reads the
// conversation's tickets gets it in the same BatchGet instead of a Query of its own.
const OPEN = 'open#';

/**
 * The count item moved by one; the increment holds only below `max`, or (a recount) when it still
 * reads `seen`. `mark`: a customer socket's mark set (with its expiry) or removed (null), and
 * expired marks removed (a recount's, whose $disconnect was lost).
 */
const countAdd = (
  key: ReturnType<typeof keys.liveCount>,
  delta: number,
  guard?: { max: number } | { seen: number; set: number },
  mark?: { connectionId: string; expires: number | null; stale?: string[] },
): TxItem => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  let add = '';
  let condition: string | undefined;
  if (guard && 'seen' in guard) {
    sets.push('n = :set');
    condition = 'attribute_not_exists(n) OR n = :seen';
    Object.assign(values, { ':set': guard.set, ':seen': guard.seen });
  } else {
    add = 'ADD n :d';
    values[':d'] = delta;
    if (guard) {
      condition = 'attribute_not_exists(n) OR n < :max';
      values[':max'] = guard.max;
    }
  }
  if (mark) {
    names['#mark'] = OPEN + mark.connectionId;
    if (mark.expires === null) removes.push('#mark');
    else {
      sets.push('#mark = :expires');
      values[':expires'] = mark.expires;
    }
    (mark.stale ?? []).forEach((name, k) => {
      names[`#stale${k}`] = name;
      removes.push(`#stale${k}`);
    });
  }
  const expression = [
    add,
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    Update: {
      Key: key,
      UpdateExpression: expression,
      ...(condition ? { ConditionExpression: condition } : {}),
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
};

/** Whether a conversation's count item marks a customer socket that has not expired. */
const marksLive = (item: Record<string, unknown> | undefined, now: number) =>
  Object.entries(item ?? {}).some(([name, v]) => name.startsWith(OPEN) && typeof v === 'number' && v > now);
const markFor = (c: LiveConnection, expires: number | null, stale?: string[]) =>
  c.kind === 'customer' ? { connectionId: c.connectionId, expires, ...(stale ? { stale } : {}) } : undefined;

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
      await transact(items(countAdd(countKey(tenantId, c), 1, { max }, markFor(c, expires))));
      return true;
    } catch (e) {
      if (!(e instanceof TxConditionFailed)) throw e;
    }
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: countKey(tenantId, c), ConsistentRead: true }),
    );
    const seen = (r.Item?.n as number | undefined) ?? 0;
    const stale = Object.entries(r.Item ?? {})
      .filter(([name, v]) => name.startsWith(OPEN) && !((v as number) > nowS()))
      .map(([name]) => name);
    const open = (await openIn(pk)).filter((o) =>
      c.kind === 'member' ? o.kind === 'member' && o.userId === c.userId : true,
    ).length;
    if (open >= max) return false;
    try {
      await transact(items(countAdd(countKey(tenantId, c), 0, { seen, set: open + 1 }, markFor(c, expires, stale))));
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
      countAdd(countKey(tenantId, c), -1, undefined, markFor(c, null)),
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

  /** Whether a conversation's customer has a socket open (one strongly consistent GetItem). */
  async customerLive(tenantId: string, conversationId: string): Promise<boolean> {
    const r = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: liveRepo.customerMarks(tenantId, conversationId),
        ConsistentRead: true,
      }),
    );
    return liveRepo.liveIn(r.Item);
  },

  /** The item that marks a conversation's customer sockets, to read beside others in one BatchGet (see `liveIn`). */
  customerMarks: (tenantId: string, conversationId: string) =>
    keys.liveCount(keys.liveConversation(tenantId, conversationId).pk),
  /** Whether the item of `customerMarks`, read strongly, says the customer is live. */
  liveIn: (item: Record<string, unknown> | undefined) => marksLive(item, nowS()),

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
