import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { queryAll } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { transact } from './tx.ts';

// Live-channel state: one item per open connection in the tenant's LIVE partition (what the
// dispatcher reads), a lookup by connection id (what $disconnect has), and one-time tickets.

export type LiveConnection =
  | { connectionId: string; kind: 'member'; userId: string }
  | { connectionId: string; kind: 'customer'; conversationId: string };

/** API Gateway keeps a WebSocket at most 2 hours; items outlive that a little, then expire. */
const CONNECTION_S = 2 * 3600 + 600;
const nowS = () => Math.floor(Date.now() / 1000);

export const liveRepo = {
  async connect(tenantId: string, c: LiveConnection): Promise<void> {
    const expires = nowS() + CONNECTION_S;
    await transact([
      { Put: { Item: { ...keys.liveConnection(tenantId, c.connectionId), type: 'liveConnection', ...c, [TTL_ATTRIBUTE]: expires } } },
      { Put: { Item: { ...keys.liveConnectionLookup(c.connectionId), type: 'liveConnectionLookup', tenantId, [TTL_ATTRIBUTE]: expires } } },
    ]);
  },

  /** Forgets a connection; `tenantId` when known, else found through the lookup. */
  async disconnect(connectionId: string, tenantId?: string): Promise<void> {
    let tenant = tenantId;
    if (!tenant) {
      const r = await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.liveConnectionLookup(connectionId), ReturnValues: 'ALL_OLD' }));
      tenant = r.Attributes?.tenantId as string | undefined;
    } else {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.liveConnectionLookup(connectionId) }));
    }
    if (tenant) await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.liveConnection(tenant, connectionId) }));
  },

  /** Every open connection of a tenant: one Query (strongly consistent, so a socket that just opened is there). */
  async connections(tenantId: string): Promise<LiveConnection[]> {
    const items = await queryAll({ partition: { name: 'pk', value: keys.liveConnections(tenantId).pk }, consistent: true });
    const now = nowS();
    return items.filter((i) => (i[TTL_ATTRIBUTE] as number) > now).map((i) => (i.kind === 'member'
      ? { connectionId: i.connectionId as string, kind: 'member', userId: i.userId as string }
      : { connectionId: i.connectionId as string, kind: 'customer', conversationId: i.conversationId as string }));
  },

  async putTicket(tenantId: string, hash: string, userId: string, expiresAt: number): Promise<void> {
    await db.send(new PutCommand({
      TableName: tableName(),
      Item: { ...keys.liveTicket(tenantId, hash), type: 'liveTicket', userId, [TTL_ATTRIBUTE]: expiresAt },
      ConditionExpression: 'attribute_not_exists(pk)',
    }));
  },

  /** Uses a ticket up: the user it was issued to, or null when unknown, used or expired. */
  async takeTicket(tenantId: string, hash: string): Promise<string | null> {
    try {
      const r = await db.send(new DeleteCommand({
        TableName: tableName(), Key: keys.liveTicket(tenantId, hash), ReturnValues: 'ALL_OLD',
        ConditionExpression: 'attribute_exists(pk) AND #exp > :now',
        ExpressionAttributeNames: { '#exp': TTL_ATTRIBUTE }, ExpressionAttributeValues: { ':now': nowS() },
      }));
      return (r.Attributes?.userId as string | undefined) ?? null;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return null;
      throw e;
    }
  },
};
