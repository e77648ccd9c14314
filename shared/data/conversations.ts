import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Channel, ConversationStatus, MessageRole, TicketStatus } from '#shared/core/vocabulary.ts';
import { db, tableName } from './client.ts';
import { clean, keys, timeSortKey } from './keys.ts';
import type { TxItem } from './tx.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { batchGet, queryAll, queryPage } from './lists.ts';

export interface Conversation {
  id: string;
  tenantId: string;
  status: ConversationStatus;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  userMessageCount: number;
  lastMessagePreview: string;
  lastIntent: string | null;
  latestTicketId?: string;
  latestTicketStatus?: TicketStatus;
  /** The latest ticket has its first agent reply, so later agent messages need not read the ticket. */
  latestTicketAnswered?: boolean;
  /** Tickets of this conversation that are not closed; the conversation closes when it reaches 0. */
  unclosedTickets: number;
  /** The customer's rating; a later one replaces it. */
  rating?: Rating;
  /** Who the customer is, as the site or the customer said; absent for an anonymous visitor. */
  visitor?: Visitor;
  latestTicketNumber?: number;
  /** The latest ticket's assignee (null: none), kept with its status for the inbox. Absent: not known (before it was kept). */
  latestTicketAssigneeId?: string | null;
  /** The latest agent message's time: whose word is last, for the inbox's stage. */
  lastAgentMessageAt?: string;
  /** The team's labels, as first spelled in the tenant; `labelsRev` moves with every change of them. */
  labels?: string[];
  labelsRev?: number;
  /** The latest customer message's time: the inbox's order (gsi1sk, gsi2sk move with it). Absent: createdAt. */
  lastCustomerMessageAt?: string;
  /** An intent that asked the customer for an entity it cannot answer without; null or absent when none waits. */
  pending?: PendingIntent | null;
  /** Absent: `widget`. */
  channel?: Channel;
  /** Answers that were not a fallback (an intent's or an article's), for "resolved by the assistant". */
  assistantAnswers?: number;
  /** When the resolution job counted it as resolved by the assistant (it counts once). */
  resolutionCountedAt?: string;
  /** Email conversations: the first message's subject, and the thread's addresses. */
  subject?: string;
  email?: ConversationEmail;
}
/** `asked`: the entity the assistant's latest reply asks for; `entities`: what the intent has already. */
export interface PendingIntent {
  intent: string;
  entities: Record<string, string>;
  asked: string;
}
/** `customer`: the address replies go to; `token`: the unguessable part of the reply address `<slug>+<token>@…`. */
export interface ConversationEmail {
  customer: string;
  token: string;
}
/** A stored file of an email: the object's key stays in the data layer's items, never in the API. */
export interface Attachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
  key: string;
}
/**
 * What an email message keeps besides its text: the Message-ID and, inbound, the sender, the stored
 * original and the receiving service's verdicts on this very message (`verified`: all three
 * passed; absent on messages stored before verdicts were kept per message).
 */
export interface MessageEmail {
  messageId: string;
  from?: string;
  subject?: string;
  rawKey?: string;
  trimmed?: boolean;
  automatic?: boolean;
  verified?: boolean;
  verdicts?: { spf: string; dkim: string; dmarc: string };
}
/**
 * `verified`: the site signed `userId` with the tenant's identity secret. Unverified facts are
 * kept for the team to read and never link conversations. `emailVerified`: the address itself is
 * vouched for, by the site's signature of it (`emailHash`, beside a verified user id) or, for an
 * email's sender, by SPF, DKIM and DMARC; only such an address links widget and email conversations.
 */
export interface Visitor {
  userId: string | null;
  name: string | null;
  email: string | null;
  verified: boolean;
  emailVerified: boolean;
}
export interface Rating {
  score: number;
  comment: string | null;
  createdAt: string;
}
export interface Metadata {
  intentDetected: string;
  confidence: number;
  entitiesExtracted: Record<string, string>;
  intentRanking: Array<{ intent: string; confidence: number }>;
  ticketId?: string;
  ticketNumber?: number;
  /** Knowledge answers: the articles it came from; fallbacks: []. */
  sources?: Array<{ articleId: string; title: string; url: string | null }>;
  /** Knowledge answers: the article's formatting of the answer's phrases (see TextFormat). */
  format?: { strong: string[]; emphasis: string[]; links: Array<{ text: string; url: string }>; listItems: string[] };
  /** An intent that called its action: how the call went. */
  action?: { integrationId: string; status: 'ok' | 'failed' | 'timeout' | 'skipped'; latencyMs: number };
}
export interface Message {
  id: string;
  role: MessageRole;
  content: string;
  createdAt: string;
  metadata?: Metadata;
  /** Agent messages: the member who wrote it. */
  author?: { id: string; name: string };
  email?: MessageEmail;
  attachments?: Attachment[];
}

const PREVIEW = 120;
export const preview = (s: string) => ([...s].length > PREVIEW ? `${[...s].slice(0, PREVIEW - 1).join('')}…` : s);

/** Where a conversation sits in the inbox: by its latest customer message (its creation, before the first). */
const inboxSortKey = (c: Pick<Conversation, 'createdAt' | 'id' | 'lastCustomerMessageAt'>) =>
  timeSortKey(c.lastCustomerMessageAt ?? c.createdAt, c.id);
const statusIndex = (
  tenantId: string,
  c: Pick<Conversation, 'status' | 'createdAt' | 'id' | 'lastCustomerMessageAt'>,
) => ({ ...keys.conversationsByStatusIndex(tenantId, c.status), gsi2sk: inboxSortKey(c) });
/** Only a verified visitor's conversations join their list; an unverified user id joins nothing. */
const visitorIndex = (c: Pick<Conversation, 'tenantId' | 'createdAt' | 'id' | 'visitor'>) =>
  c.visitor?.verified && c.visitor.userId
    ? { ...keys.visitorConversationsIndex(c.tenantId, c.visitor.userId), gsi3sk: timeSortKey(c.createdAt, c.id) }
    : {};

// The items a conversation's writes put in their transactions (conversationsRepo.tx).

function put(c: Conversation): TxItem {
  return {
    Put: {
      Item: {
        ...keys.conversation(c.tenantId, c.id),
        type: 'conversation',
        ...c,
        ...keys.conversationsIndex(c.tenantId),
        gsi1sk: inboxSortKey(c),
        ...statusIndex(c.tenantId, c),
        ...visitorIndex(c),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Update of an existing conversation. `expect` guards what the caller read: the status and the
 * latest ticket, so a concurrent escalation or ticket change makes this fail and be re-read.
 */
function update(
  c: Conversation,
  set: Partial<Omit<Conversation, 'id' | 'tenantId' | 'createdAt'>>,
  add: { messageCount?: number; userMessageCount?: number; unclosedTickets?: number; assistantAnswers?: number },
  expect: { maxUserMessages?: number; unchangedSince?: boolean } = {},
): TxItem {
  const names: Record<string, string> = { '#status': 'status', '#ttl': TTL_ATTRIBUTE };
  const values: Record<string, unknown> = { ':closed': 'closed' };
  const sets: string[] = [];
  const next = { ...c, ...set };
  for (const [k, v] of Object.entries(set)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  if (set.status && set.status !== c.status) {
    const idx = statusIndex(c.tenantId, next);
    names['#g2'] = 'gsi2pk';
    values[':g2'] = idx.gsi2pk;
    sets.push('#g2 = :g2');
  }
  // A customer message moves the conversation up the inbox, all and by status; nothing else does.
  if (set.lastCustomerMessageAt) {
    names['#g1s'] = 'gsi1sk';
    names['#g2s'] = 'gsi2sk';
    values[':gs'] = inboxSortKey(next);
    sets.push('#g1s = :gs', '#g2s = :gs');
  }
  const vIdx: { gsi3pk?: string; gsi3sk?: string } = set.visitor ? visitorIndex(next) : {};
  if (vIdx.gsi3pk) {
    names['#g3'] = 'gsi3pk';
    names['#g3s'] = 'gsi3sk';
    values[':g3'] = vIdx.gsi3pk;
    values[':g3s'] = vIdx.gsi3sk;
    sets.push('#g3 = :g3', '#g3s = :g3s');
  }
  const adds = Object.entries(add)
    .filter(([, v]) => v)
    .map(([k, v]) => {
      names[`#${k}`] = k;
      values[`:a_${k}`] = v;
      return `#${k} :a_${k}`;
    });
  let cond = 'attribute_exists(pk) AND #status = :readStatus';
  values[':readStatus'] = c.status;
  if (c.latestTicketId) {
    names['#lt'] = 'latestTicketId';
    values[':lt'] = c.latestTicketId;
    cond += ' AND #lt = :lt';
  } else {
    names['#lt'] = 'latestTicketId';
    cond += ' AND attribute_not_exists(#lt)';
  }
  if (c.latestTicketStatus) {
    names['#lts'] = 'latestTicketStatus';
    values[':lts'] = c.latestTicketStatus;
    cond += ' AND #lts = :lts';
  }
  // Writes that must commit in the order of their timestamps (agent messages) also guard updatedAt.
  if (expect.unchangedSince) {
    names['#upd'] = 'updatedAt';
    values[':readUpd'] = c.updatedAt;
    cond += ' AND #upd = :readUpd';
  }
  if (expect.maxUserMessages !== undefined) {
    names['#umc'] = 'userMessageCount';
    values[':maxu'] = expect.maxUserMessages;
    cond += ' AND #umc < :maxu';
  }
  return {
    Update: {
      Key: keys.conversation(c.tenantId, c.id),
      // Activity takes off a retention stamp (shared/data/retention.ts): the conversation stays, its old items go.
      UpdateExpression: [
        sets.length ? `SET ${sets.join(', ')}` : '',
        adds.length ? `ADD ${adds.join(', ')}` : '',
        'REMOVE #ttl',
      ]
        .join(' ')
        .trim(),
      ConditionExpression: cond,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

function message(tenantId: string, conversationId: string, m: Message, seq: number): TxItem {
  return {
    Put: {
      Item: { ...keys.message(tenantId, conversationId, m.createdAt, seq, m.id), type: 'message', ...m },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Counts a user message in its conversation's fixed one-minute window; fails past `limit`. */
function rateWindow(tenantId: string, conversationId: string, now: Date, limit: number): TxItem {
  const minute = now.toISOString().slice(0, 16);
  return {
    Update: {
      Key: keys.rateWindow(tenantId, conversationId, minute),
      UpdateExpression: 'ADD n :one SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
      ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': Math.floor(now.getTime() / 1000) + 120 },
    },
  };
}

/**
 * The conversation side of a ticket change. Besides what `update` guards (status, latest ticket),
 * it guards `unclosedTickets` as read: two tickets of one conversation closing at once must not
 * both see "one left" and leave the conversation open.
 */
function ticketChange(
  c: Conversation,
  set: Partial<Pick<Conversation, 'status' | 'latestTicketStatus' | 'latestTicketAssigneeId' | 'updatedAt'>>,
  closing: boolean,
): TxItem {
  const item = update(c, set, { unclosedTickets: closing ? -1 : 0 });
  const u = item.Update!;
  u.ConditionExpression += ' AND #uc = :readUc';
  u.ExpressionAttributeNames = { ...u.ExpressionAttributeNames, '#uc': 'unclosedTickets' };
  u.ExpressionAttributeValues = { ...u.ExpressionAttributeValues, ':readUc': c.unclosedTickets };
  return item;
}

/** The conversation's labels, conditional on the revision read: a concurrent change fails this and is re-read. */
function setLabels(c: Conversation, labels: string[]): TxItem {
  return {
    Update: {
      Key: keys.conversation(c.tenantId, c.id),
      UpdateExpression: 'SET #l = :l ADD #r :one',
      ConditionExpression:
        c.labelsRev === undefined
          ? 'attribute_exists(pk) AND attribute_not_exists(#r)'
          : 'attribute_exists(pk) AND #r = :rev',
      ExpressionAttributeNames: { '#l': 'labels', '#r': 'labelsRev' },
      ExpressionAttributeValues: { ':l': labels, ':one': 1, ':rev': c.labelsRev },
    },
  };
}

export const conversationsRepo = {
  /** The conversation item, its messages oldest first and its ticket ids: one Query (paged past 1 MB). */
  async load(tenantId: string, conversationId: string) {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.conversationPartition(tenantId, conversationId) },
      descending: false,
    });
    const conv = items.find((i) => i.sk === 'CONV');
    if (!conv) return null;
    return {
      conversation: clean<Conversation>(conv),
      messages: items.filter((i) => (i.sk as string).startsWith('MSG#')).map((i) => clean<Message>(i)),
      /** Outgoing emails' delivery status (and why it was refused) by message id (shared/data/email.ts writes them). */
      deliveries: new Map(
        items
          .filter((i) => (i.sk as string).startsWith('EMAILOUT#'))
          .map((i) => [
            i.messageId as string,
            { status: i.status as string, ...(i.reason ? { reason: i.reason as string } : {}) },
          ]),
      ),
      ticketIds: items.filter((i) => (i.sk as string).startsWith('TICKET#')).map((i) => i.ticketId as string),
    };
  },

  // One by id, and pages newest first on gsi1 (all) or gsi2 (by status).
  /** A conversation item read elsewhere (in another list's BatchGet) as a conversation. */
  fromItem: (item: Record<string, unknown>): Conversation => clean<Conversation>(item),

  async get(tenantId: string, conversationId: string, consistent = false): Promise<Conversation | null> {
    const r = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.conversation(tenantId, conversationId),
        ConsistentRead: consistent,
      }),
    );
    return r.Item ? clean<Conversation>(r.Item) : null;
  },

  /** `channel` filters the page (a page may be shorter than `limit` while `nextCursor` goes on). */
  async list(
    tenantId: string,
    filters: { status?: ConversationStatus; channel?: Channel },
    limit: number,
    cursor?: string,
  ) {
    const base = filters.status
      ? {
          index: 'gsi2' as const,
          partition: { name: 'gsi2pk', value: keys.conversationsByStatusIndex(tenantId, filters.status).gsi2pk },
        }
      : { index: 'gsi1' as const, partition: { name: 'gsi1pk', value: keys.conversationsIndex(tenantId).gsi1pk } };
    const filter =
      filters.channel === 'email'
        ? { expression: '#ch = :ch', names: { '#ch': 'channel' }, values: { ':ch': 'email' } }
        : filters.channel === 'widget'
          ? {
              expression: 'attribute_not_exists(#ch) OR #ch = :ch',
              names: { '#ch': 'channel' },
              values: { ':ch': 'widget' },
            }
          : undefined;
    const page = await queryPage(
      { ...base, ...(filter ? { filter } : {}) },
      { tenantId, list: 'conversations', filters },
      limit,
      cursor,
    );
    return { items: page.items.map((i) => clean<Conversation>(i)), nextCursor: page.nextCursor };
  },

  /** Conversations by id (those that exist), one BatchGet per 100. */
  async batchGet(tenantId: string, ids: string[]): Promise<Conversation[]> {
    const items = await batchGet(
      [...new Set(ids)].map((id) => keys.conversation(tenantId, id)),
      false,
    );
    return items.map((i) => clean<Conversation>(i));
  },

  /** A verified visitor's newest `n` conversations: one Query on gsi3. */
  async ofVisitor(tenantId: string, userId: string, n: number): Promise<Conversation[]> {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi3',
        KeyConditionExpression: 'gsi3pk = :p',
        ExpressionAttributeValues: { ':p': keys.visitorConversationsIndex(tenantId, userId).gsi3pk },
        ScanIndexForward: false,
        Limit: n,
      }),
    );
    return (r.Items ?? []).map((i) => clean<Conversation>(i));
  },

  /** The newest `n` conversations: one Query on gsi1 with Limit n. */
  async recent(tenantId: string, n: number): Promise<Conversation[]> {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': keys.conversationsIndex(tenantId).gsi1pk },
        ScanIndexForward: false,
        Limit: n,
      }),
    );
    return (r.Items ?? []).map((i) => clean<Conversation>(i));
  },

  /** Transaction items: the conversation (new or updated), a message, the rate window, a ticket's effect. */
  tx: { put, update, message, rateWindow, ticketChange, setLabels },
};
