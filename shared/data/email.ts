import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EmailDeliveryStatus } from '#shared/core/vocabulary.ts';
import { db, tableName } from './client.ts';
import { emailKeys, keys, type Key } from './keys.ts';
import { batchGet, deleteAll, queryAll } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';

// The email channel's items. Access patterns:
// - a Message-ID (seen inbound or sent) -> its conversation, per tenant: threading by In-Reply-To/References;
// - a reply token -> its conversation, per tenant: threading by the reply address;
// - the tenant's suppressed addresses: one partition, read whole by the settings page;
// - an outgoing message's delivery status, in its conversation's partition (read with the conversation).

/** A thread reference is kept as long as a customer may plausibly answer. */
const REF_KEEP_S = 400 * 24 * 3600;

/** The order a delivery status may move in: an SES event that arrives late never moves it back. */
const RANK: Record<EmailDeliveryStatus, number> = {
  sending: 0,
  sent: 1,
  delivered: 2,
  bounced: 3,
  complained: 3,
  failed: 3,
};

/** A reply address token (`<slug>+<token>@…`): 96 random bits, lower-case hex (local parts are often case-folded). */
export const newReplyToken = () => randomBytes(12).toString('hex');

export interface Suppression {
  email: string;
  reason: 'bounce' | 'complaint';
  createdAt: string;
}

export const emailRepo = {
  /** The conversation of the first of `messageIds` this tenant has seen, if any (one BatchGet). */
  async threadOf(tenantId: string, messageIds: string[]): Promise<string | null> {
    const ids = [...new Set(messageIds)].slice(0, 50);
    if (!ids.length) return null;
    const found = await batchGet(
      ids.map((id) => emailKeys.thread(tenantId, id)),
      false,
    );
    const byPk = new Map(found.map((i) => [i.pk as string, i.conversationId as string]));
    for (const id of ids) {
      const c = byPk.get(emailKeys.thread(tenantId, id).pk);
      if (c) return c;
    }
    return null;
  },

  async conversationOfToken(tenantId: string, token: string): Promise<string | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: emailKeys.replyToken(tenantId, token) }));
    return (r.Item?.conversationId as string | undefined) ?? null;
  },

  async isSuppressed(tenantId: string, email: string): Promise<boolean> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: emailKeys.suppressed(tenantId, email) }));
    return r.Item !== undefined;
  },

  async suppression(tenantId: string, email: string): Promise<Suppression | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: emailKeys.suppressed(tenantId, email), ConsistentRead: true }),
    );
    return r.Item
      ? {
          email: r.Item.sk as string,
          reason: r.Item.reason as Suppression['reason'],
          createdAt: r.Item.createdAt as string,
        }
      : null;
  },

  /**
   * Deletes what the channel keeps about a customer outside their conversations (erasure): the
   * suppression of each address, the limit windows named after it, and the lookups that lead a
   * Message-ID or a reply token to their conversations.
   */
  async forget(
    tenantId: string,
    f: { emails: string[]; windows: string[]; messageIds: string[]; tokens: string[] },
  ): Promise<void> {
    const windows = await Promise.all(
      f.windows.map((name) =>
        queryAll({ partition: { name: 'pk', value: keys.limitWindow(tenantId, name, 'x').pk }, consistent: true }),
      ),
    );
    await deleteAll([
      ...f.emails.map((e) => emailKeys.suppressed(tenantId, e)),
      ...windows.flat().map((i): Key => ({ pk: i.pk as string, sk: i.sk as string })),
      ...f.messageIds.map((id) => emailKeys.thread(tenantId, id)),
      ...f.tokens.map((t) => emailKeys.replyToken(tenantId, t)),
    ]);
  },

  async suppressed(tenantId: string): Promise<Suppression[]> {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': emailKeys.suppressedPartition(tenantId) },
        Limit: 1000,
      }),
    );
    return (r.Items ?? []).map((i) => ({
      email: i.sk as string,
      reason: i.reason as Suppression['reason'],
      createdAt: i.createdAt as string,
    }));
  },

  /** Moves a delivery status forward only; false when it was there already or further. `reason`: why the send was refused. */
  async setDelivery(
    tenantId: string,
    conversationId: string,
    messageId: string,
    status: EmailDeliveryStatus,
    at: string,
    reason?: string,
  ): Promise<boolean> {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: emailKeys.delivery(tenantId, conversationId, messageId),
          UpdateExpression: `SET #s = :s, #r = :r, updatedAt = :at${reason ? ', reason = :why' : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND #r < :r',
          ExpressionAttributeNames: { '#s': 'status', '#r': 'rank' },
          ExpressionAttributeValues: {
            ':s': status,
            ':r': RANK[status],
            ':at': at,
            ...(reason ? { ':why': reason } : {}),
          },
        }),
      );
      return true;
    } catch (e) {
      if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw e;
    }
  },

  tx: {
    /** Fails (a duplicate) when this Message-ID is already known in the tenant. */
    thread: (tenantId: string, messageId: string, conversationId: string, at: string): TxItem => ({
      Put: {
        Item: {
          ...emailKeys.thread(tenantId, messageId),
          type: 'emailRef',
          conversationId,
          createdAt: at,
          [TTL_ATTRIBUTE]: Math.floor(Date.parse(at) / 1000) + REF_KEEP_S,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    }),
    token: (tenantId: string, token: string, conversationId: string): TxItem => ({
      Put: {
        Item: { ...emailKeys.replyToken(tenantId, token), type: 'emailToken', conversationId },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    }),
    delivery: (tenantId: string, conversationId: string, messageId: string, to: string, at: string): TxItem => ({
      Put: {
        Item: {
          ...emailKeys.delivery(tenantId, conversationId, messageId),
          type: 'emailDelivery',
          messageId,
          to,
          status: 'sending',
          rank: 0,
          updatedAt: at,
        },
      },
    }),
    suppress: (tenantId: string, email: string, reason: Suppression['reason'], at: string): TxItem => ({
      Put: { Item: { ...emailKeys.suppressed(tenantId, email), type: 'suppressed', reason, createdAt: at } },
    }),
  },
};
