import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys, type Key } from './keys.ts';
import { deleteAll, queryAll } from './lists.ts';
import type { TxItem } from './tx.ts';

// A customer's personal data, field by field, and the one place that owns each. Export and erasure
// walk this list from the customer's conversations (found by email link or verified user id); they
// never read the whole table.
//
//   conversation item     visitor (userId, name, email), lastMessagePreview, rating.comment   redacted in place
//   message items         content, metadata.entitiesExtracted, metadata.format                redacted in place
//   ticket items          reason (the customer's words)                                       redacted in place
//   email links           this module: email -> conversation                                  deleted
//   outbox event items    the conversation's event partition (snapshots of all of the above)  deleted
//   webhook deliveries    payloads naming the conversation                                    deleted
//   unanswered items      one per user message                                                deleted
//   message vectors       an unanswered message's, by its text's hash                        the indexing pass the erasure queues
//   taught examples       made from the conversation's messages (domain: taken back, audit redacted)
//   email conversation    subject, email (customer address, reply token)                    subject redacted, email removed
//   email message items   email (Message-ID, from, subject, original's key), attachments       removed
//   email deliveries      EMAILOUT# items beside the messages: `to`, `reason`                removed (status kept)
//   email channel         lookups, suppression, limit windows, stored objects: emailSource in
//                         shared/domain/privacy/email.ts
//
// Redacted shells keep ids, statuses, times and counts, so the dashboard's lists, open tickets and
// /stats (per-day counters, which hold no personal data) stay as they were.

export const ERASED = '[erased]';

/** Everything of one conversation that may hold personal data, as stored. */
export interface Holdings {
  conversationId: string;
  /** The conversation partition: the conversation item, its messages, its ticket references. */
  conversation: Record<string, unknown>[];
  /** Each ticket's partition: the ticket item and its audit trail. */
  tickets: Record<string, unknown>[][];
  /** The outbox events of the conversation still kept (a day). */
  events: Record<string, unknown>[];
  /** The stored answers of its requests sent with an Idempotency-Key (kept a day). */
  replies: Record<string, unknown>[];
}

const isMessage = (i: Record<string, unknown>) => (i.sk as string).startsWith('MSG#');
/** An outgoing email's delivery status, kept in the conversation's partition (shared/data/email.ts). */
export const isEmailDelivery = (i: Record<string, unknown>) => (i.sk as string).startsWith('EMAILOUT#');
const keyOf = (i: Record<string, unknown>): Key => ({ pk: i.pk as string, sk: i.sk as string });

export const customersRepo = {
  /** The conversations an email address was given in (any tenant's address stays in its tenant's partition). */
  async conversationsOfEmail(tenantId: string, email: string): Promise<string[]> {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.customerEmailPartition(tenantId, email) },
      consistent: true,
    });
    return items.map((i) => i.conversationId as string);
  },

  /** A verified visitor's conversations, all of them (gsi3). */
  async conversationsOfUser(tenantId: string, userId: string): Promise<string[]> {
    const items = await queryAll({
      index: 'gsi3',
      partition: { name: 'gsi3pk', value: keys.visitorConversationsIndex(tenantId, userId).gsi3pk },
    });
    return items.map((i) => i.id as string);
  },

  async holdings(tenantId: string, conversationId: string): Promise<Holdings | null> {
    const [conversation, events, replies] = await Promise.all([
      queryAll({
        partition: { name: 'pk', value: keys.conversationPartition(tenantId, conversationId) },
        descending: false,
        consistent: true,
      }),
      queryAll({ partition: { name: 'pk', value: keys.event(tenantId, 'x', conversationId).pk }, descending: false }),
      queryAll({
        index: 'gsi1',
        partition: { name: 'gsi1pk', value: keys.conversationRepliesIndex(tenantId, conversationId).gsi1pk },
      }),
    ]);
    if (!conversation.some((i) => i.sk === 'CONV')) return null;
    const ticketIds = conversation
      .filter((i) => (i.sk as string).startsWith('TICKET#'))
      .map((i) => i.ticketId as string);
    const tickets = await Promise.all(
      ticketIds.map((id) =>
        queryAll({
          partition: { name: 'pk', value: keys.ticket(tenantId, id).pk },
          descending: false,
          consistent: true,
        }),
      ),
    );
    return { conversationId, conversation, tickets: tickets.filter((t) => t.length), events, replies };
  },

  /** Webhook and Slack deliveries (kept 30 days) whose payload names one of the conversations. */
  async deliveriesOf(
    tenantId: string,
    integrationIds: string[],
    conversationIds: string[],
  ): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const integrationId of integrationIds) {
      for (const conversationId of conversationIds) {
        let start: Record<string, unknown> | undefined;
        do {
          const r = await db.send(
            new QueryCommand({
              TableName: tableName(),
              KeyConditionExpression: 'pk = :p',
              FilterExpression: 'contains(payload, :c)',
              ExpressionAttributeValues: {
                ':p': keys.delivery(tenantId, integrationId, 'x').pk,
                ':c': `"${conversationId}"`,
              },
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
          out.push(...(r.Items ?? []));
          start = r.LastEvaluatedKey;
        } while (start);
      }
    }
    return out;
  },

  /** Redacts what `h` holds in place and deletes the copies (events, links, unanswered items, deliveries). */
  async erase(
    tenantId: string,
    h: Holdings,
    emails: string[],
    deliveries: Record<string, unknown>[],
    now: string,
  ): Promise<void> {
    const conv = h.conversation.find((i) => i.sk === 'CONV')!;
    const messages = h.conversation.filter(isMessage);
    const updates: Array<Promise<unknown>> = [];
    const update = (Key: Key, expr: string, values: Record<string, unknown> = {}, names: Record<string, string> = {}) =>
      updates.push(
        db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key,
            UpdateExpression: expr,
            ConditionExpression: 'attribute_exists(pk)',
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          }),
        ),
      );
    update(
      keyOf(conv),
      `SET lastMessagePreview = :e, erasedAt = :now${conv.rating ? ', rating.#c = :null' : ''}${conv.subject ? ', #sub = :e' : ''} REMOVE visitor, gsi3pk, gsi3sk${conv.email ? ', #em' : ''}`,
      { ':e': ERASED, ':now': now, ...(conv.rating ? { ':null': null } : {}) },
      {
        ...(conv.rating ? { '#c': 'comment' } : {}),
        ...(conv.subject ? { '#sub': 'subject' } : {}),
        ...(conv.email ? { '#em': 'email' } : {}),
      },
    );
    for (const m of messages) {
      const meta = m.metadata as Record<string, unknown> | undefined;
      const remove = [
        ...(meta?.format ? ['metadata.#f'] : []),
        ...(m.email ? ['#em'] : []),
        ...(m.attachments ? ['#at'] : []),
      ];
      update(
        keyOf(m),
        `SET content = :e${meta ? ', metadata.entitiesExtracted = :none' : ''}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        { ':e': ERASED, ...(meta ? { ':none': {} } : {}) },
        {
          ...(meta?.format ? { '#f': 'format' } : {}),
          ...(m.email ? { '#em': 'email' } : {}),
          ...(m.attachments ? { '#at': 'attachments' } : {}),
        },
      );
    }
    for (const d of h.conversation.filter(isEmailDelivery))
      if (d.to || d.reason) update(keyOf(d), 'REMOVE #to, reason', {}, { '#to': 'to' });
    for (const t of h.tickets) {
      const ticket = t.find((i) => i.sk === 'TICKET');
      if (ticket) update(keyOf(ticket), 'SET reason = :e', { ':e': ERASED });
    }
    await Promise.all(updates);
    const userMessages = messages.filter((m) => m.role === 'user');
    await deleteAll([
      ...h.events.map(keyOf),
      ...h.replies.map(keyOf),
      // A delivery's body names the conversation: it goes, and so does its delivery.
      ...deliveries.flatMap((d) =>
        String(d.sk).startsWith('BODY#') ? [keyOf(d), { pk: d.pk as string, sk: String(d.sk).slice(5) }] : [keyOf(d)],
      ),
      ...emails.map((e) => keys.customerEmailLink(tenantId, e, h.conversationId)),
      ...userMessages.map((m) => keys.unanswered(tenantId, m.createdAt as string, m.id as string)),
    ]);
  },

  tx: {
    /** Links an address to a conversation it was given in, in the transaction that stores it. */
    link(tenantId: string, email: string, conversationId: string): TxItem {
      return {
        Put: {
          Item: { ...keys.customerEmailLink(tenantId, email, conversationId), type: 'customerLink', conversationId },
        },
      };
    },
  },
};
