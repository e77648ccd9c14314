import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Priority, TicketStatus } from '#shared/core/vocabulary.ts';
import { conditional, db, tableName } from './client.ts';
import type { Conversation } from './conversations.ts';
import { clean, keys, timeSortKey, type Key } from './keys.ts';
import { batchGet, queryAll, queryPage, type Page } from './lists.ts';
import { asAudit, type AuditEntry } from './audit.ts';
import { transact, type TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

export interface Ticket {
  id: string;
  /** 1, 2, 3... per tenant in creation order; null only on a ticket made before numbering, until it is numbered. */
  number: number | null;
  conversationId: string;
  status: TicketStatus;
  priority: Priority;
  reason: string;
  createdAt: string;
  updatedAt: string;
  /** A member's user id, or null. */
  assigneeId: string | null;
  /** When the first agent message answered it. */
  firstResponseAt: string | null;
  /** When it last became `resolved`; null again once it reopens. */
  resolvedAt: string | null;
}

const ticketIndexes = (tenantId: string, t: Ticket) => ({
  ...keys.ticketsIndex(tenantId),
  gsi1sk: timeSortKey(t.createdAt, t.id),
  ...keys.ticketsByStatusIndex(tenantId, t.status),
  gsi2sk: timeSortKey(t.createdAt, t.id),
  ...keys.ticketsByPriorityIndex(tenantId, t.priority),
  gsi3sk: timeSortKey(t.createdAt, t.id),
});

/**
 * The ticket, its reference in the conversation's partition, its number's lookup item, and the
 * counter moved from the value read to the ticket's number, on the condition that the caller
 * still holds the counter's lease (which this releases). A concurrent ticket can therefore neither
 * take the same number (the counter's condition, and the lookup's) nor leave one unused: the
 * counter moves only in the transaction that writes the ticket.
 */
function put(tenantId: string, t: Ticket & { number: number }, lease: NumberLease): TxItem[] {
  return [
    {
      Put: {
        Item: { ...keys.ticket(tenantId, t.id), type: 'ticket', ...t, ...ticketIndexes(tenantId, t) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        Item: { ...keys.conversationTicketRef(tenantId, t.conversationId, t.id), type: 'ticketRef', ticketId: t.id },
      },
    },
    {
      Update: {
        Key: keys.ticketCounter(tenantId),
        UpdateExpression: 'SET n = :next, #type = :type REMOVE leaseOwner, leaseUntil',
        ConditionExpression: `leaseOwner = :owner AND ${lease.read === null ? 'attribute_not_exists(n)' : 'n = :read'}`,
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':next': t.number,
          ':type': 'ticketCounter',
          ':owner': lease.owner,
          ':read': lease.read,
        },
      },
    },
    {
      Put: {
        Item: { ...keys.ticketNumber(tenantId, t.number), type: 'ticketNumber', ticketId: t.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** The right to take a tenant's next ticket number, held for a few seconds: `last` is the number before it. */
export interface NumberLease {
  owner: string;
  read: number | null;
  last: number;
}

/**
 * Sets a ticket's changeable fields (and their index keys), guarded by the values that were read:
 * status, priority, assignee, first response and the time of the version read (so that a change
 * back and forth in between is noticed too, and the audit trail keeps the order of the changes).
 */
function update(tenantId: string, read: Ticket, next: Ticket): TxItem {
  const idx = ticketIndexes(tenantId, next);
  const guard = (attr: string, v: string | null) =>
    v === null ? `attribute_not_exists(${attr}) OR ${attr} = :null` : `${attr} = :r_${attr}`;
  return {
    Update: {
      Key: keys.ticket(tenantId, read.id),
      UpdateExpression:
        'SET #s = :s, #p = :p, updatedAt = :u, gsi2pk = :g2, gsi3pk = :g3, ' +
        'assigneeId = :a, firstResponseAt = :f, resolvedAt = :r',
      ConditionExpression: `#s = :rs AND #p = :rp AND updatedAt = :ru AND (${guard('assigneeId', read.assigneeId)}) AND (${guard('firstResponseAt', read.firstResponseAt)})`,
      ExpressionAttributeNames: { '#s': 'status', '#p': 'priority' },
      ExpressionAttributeValues: {
        ':s': next.status,
        ':p': next.priority,
        ':u': next.updatedAt,
        ':g2': idx.gsi2pk,
        ':g3': idx.gsi3pk,
        ':a': next.assigneeId,
        ':f': next.firstResponseAt,
        ':r': next.resolvedAt,
        ':rs': read.status,
        ':rp': read.priority,
        ':ru': read.updatedAt,
        // transact() sends only the ones the guards read (usedOnly in tx.ts).
        ':null': null,
        ':r_assigneeId': read.assigneeId,
        ':r_firstResponseAt': read.firstResponseAt,
      },
    },
  };
}

// Tickets: GetItem by id, BatchGet of a conversation's tickets, lists on gsi1 (all), gsi2 (status),
// gsi3 (priority), and gsi2 + a priority filter when both filters are given.

const asTicket = (i: Record<string, unknown>): Ticket => {
  const {
    id,
    number,
    conversationId,
    status,
    priority,
    reason,
    createdAt,
    updatedAt,
    assigneeId,
    firstResponseAt,
    resolvedAt,
  } = clean<Ticket>(i);
  return {
    id,
    number: number ?? null,
    conversationId,
    status,
    priority,
    reason,
    createdAt,
    updatedAt,
    assigneeId: assigneeId ?? null,
    firstResponseAt: firstResponseAt ?? null,
    resolvedAt: resolvedAt ?? null,
  };
};

export const ticketsRepo = {
  /** The ticket and its audit trail (oldest first) from the ticket's partition: one Query. */
  async getWithTrail(tenantId: string, ticketId: string): Promise<{ ticket: Ticket; auditTrail: AuditEntry[] } | null> {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.ticket(tenantId, ticketId).pk },
      descending: false,
    });
    const ticket = items.find((i) => i.sk === keys.ticket(tenantId, ticketId).sk);
    if (!ticket) return null;
    return { ticket: asTicket(ticket), auditTrail: items.filter((i) => i !== ticket).map(asAudit) };
  },

  async get(tenantId: string, ticketId: string, consistent = false): Promise<Ticket | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.ticket(tenantId, ticketId), ConsistentRead: consistent }),
    );
    return r.Item ? asTicket(r.Item) : null;
  },

  /** The ticket and its conversation, read strongly: PATCH decides on them. */
  async getWithConversation(
    tenantId: string,
    ticketId: string,
  ): Promise<{ ticket: Ticket; conversation: Conversation | null } | null> {
    const ticket = await ticketsRepo.get(tenantId, ticketId, true);
    if (!ticket) return null;
    const r = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.conversation(tenantId, ticket.conversationId),
        ConsistentRead: true,
      }),
    );
    return { ticket, conversation: r.Item ? clean<Conversation>(r.Item) : null };
  },

  /** Tickets by id, oldest first; BatchGet in chunks of 100, unprocessed keys retried. */
  async batchGet(tenantId: string, ids: string[]): Promise<Ticket[]> {
    return (await ticketsRepo.batchGetWith(tenantId, ids, null)).tickets;
  },

  /**
   * The tickets by id, and one more item read in the same call (`also`, whose key is no ticket's;
   * strongly consistent then, as that item's reader needs): a detail's one round trip for both.
   */
  async batchGetWith(
    tenantId: string,
    ids: string[],
    also: Key | null,
  ): Promise<{ tickets: Ticket[]; also?: Record<string, unknown> }> {
    const items = await batchGet([...ids.map((id) => keys.ticket(tenantId, id)), ...(also ? [also] : [])], !!also);
    const extra = also ? items.find((i) => i.pk === also.pk && i.sk === also.sk) : undefined;
    const tickets = items
      .filter((i) => i !== extra)
      .map(asTicket)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { tickets, ...(extra ? { also: extra } : {}) };
  },

  async list(
    tenantId: string,
    filters: { status?: TicketStatus; priority?: Priority; assignee?: string | null },
    limit: number,
    cursor?: string,
  ): Promise<Page<Ticket>> {
    const { status, priority, assignee } = filters;
    const scope = {
      tenantId,
      list: 'tickets',
      filters: { status, priority, assignee: assignee === null ? '<none>' : assignee },
    };
    // The index serves one filter; the others (priority beside a status, the assignee) filter its pages.
    const conds: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    if (status && priority) {
      conds.push('#prio = :prio');
      names['#prio'] = 'priority';
      values[':prio'] = priority;
    }
    if (assignee === null) {
      conds.push('(attribute_not_exists(#asg) OR #asg = :none)');
      names['#asg'] = 'assigneeId';
      values[':none'] = null;
    } else if (assignee !== undefined) {
      conds.push('#asg = :asg');
      names['#asg'] = 'assigneeId';
      values[':asg'] = assignee;
    }
    const filter = conds.length ? { filter: { expression: conds.join(' AND '), names, values } } : {};
    const q = status
      ? {
          index: 'gsi2' as const,
          partition: { name: 'gsi2pk', value: keys.ticketsByStatusIndex(tenantId, status).gsi2pk },
          ...filter,
        }
      : priority
        ? {
            index: 'gsi3' as const,
            partition: { name: 'gsi3pk', value: keys.ticketsByPriorityIndex(tenantId, priority).gsi3pk },
            ...filter,
          }
        : {
            index: 'gsi1' as const,
            partition: { name: 'gsi1pk', value: keys.ticketsIndex(tenantId).gsi1pk },
            ...filter,
          };
    const page = await queryPage(q, scope, limit, cursor);
    return { items: page.items.map(asTicket), nextCursor: page.nextCursor };
  },

  /**
   * Takes the lease on the tenant's ticket counter (one small conditional write), or null while
   * another writer holds it. Only the holder writes a ticket, so concurrent escalations wait on this
   * cheap item instead of colliding in their whole transactions. A lease left by a writer that died
   * lapses after `ms`. Where a tenant has no counter yet, `last` counts its tickets made before
   * numbering: they keep 1..n for the numbering script, new ones follow.
   */
  async leaseNumber(tenantId: string, owner: string, ms: number): Promise<NumberLease | null> {
    const now = clock.now();
    const leased = await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.ticketCounter(tenantId),
          UpdateExpression: 'SET leaseOwner = :o, leaseUntil = :u',
          ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':o': owner, ':u': now + ms, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!leased) return null;
    const item = leased.Attributes;
    if (typeof item?.n === 'number') return { owner, read: item.n, last: item.n };
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const q = await db.send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          Select: 'COUNT',
          ExpressionAttributeValues: { ':p': keys.ticketsIndex(tenantId).gsi1pk },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += q.Count ?? 0;
      start = q.LastEvaluatedKey;
    } while (start);
    return { owner, read: null, last: count };
  },

  /** Gives the lease back when its ticket was not written (the transaction failed); a lapsed one is left alone. */
  async releaseNumber(tenantId: string, owner: string): Promise<void> {
    await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.ticketCounter(tenantId),
          UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
          ConditionExpression: 'leaseOwner = :o',
          ExpressionAttributeValues: { ':o': owner },
        }),
      ),
    );
  },

  /** The ticket that has this number, or null. */
  async byNumber(tenantId: string, n: number): Promise<Ticket | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.ticketNumber(tenantId, n) }));
    return r.Item ? ticketsRepo.get(tenantId, r.Item.ticketId as string) : null;
  },

  /** Every ticket of a tenant, oldest first (the numbering script). */
  async allOldestFirst(tenantId: string): Promise<Ticket[]> {
    const items = await queryAll({
      index: 'gsi1',
      partition: { name: 'gsi1pk', value: keys.ticketsIndex(tenantId).gsi1pk },
      descending: false,
    });
    return items.map(asTicket);
  },

  /** Numbers a ticket made before numbering (the one-off script); its lookup item guards the number. */
  async assignNumber(tenantId: string, t: Ticket, n: number): Promise<void> {
    await transact([
      {
        Update: {
          Key: keys.ticket(tenantId, t.id),
          UpdateExpression: 'SET #n = :n',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#n)',
          ExpressionAttributeNames: { '#n': 'number' },
          ExpressionAttributeValues: { ':n': n },
        },
      },
      {
        Put: {
          Item: { ...keys.ticketNumber(tenantId, n), type: 'ticketNumber', ticketId: t.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  },

  /** Transaction items: a new ticket (with its reference), the guarded update of one. */
  tx: { put, update },
};
