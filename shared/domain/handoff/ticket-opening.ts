import { ulid } from 'ulid';
import { Conflict } from '#shared/core/errors.ts';
import type { Actor, Priority } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import type { Conversation } from '#shared/data/conversations.ts';
import { statsRepo } from '#shared/data/stats.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { ticketsRepo, type NumberLease, type Ticket } from '#shared/data/tickets.ts';
import { sleep, transact, type TxItem } from '#shared/data/tx.ts';
import { events } from '#shared/domain/events.ts';
import { tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { clock } from '#shared/core/clock.ts';

// A ticket opened or reopened by a customer's message: the chat's and the email channel's.

/** The actor of a ticket the widget opens or reopens. */
const WIDGET = { type: 'widget' as const, id: 'widget' };

const LEASE_MS = 8000;

/** Waits for the tenant's ticket-number lease, backing off while another escalation holds it. */
async function leaseNumber(tenantId: string): Promise<NumberLease> {
  const owner = ulid(clock.now());
  const until = clock.now() + LEASE_MS + 1000;
  for (let attempt = 0; clock.now() < until; attempt++) {
    const lease = await ticketsRepo.leaseNumber(tenantId, owner, LEASE_MS);
    if (lease) return lease;
    await sleep(10 + Math.random() * Math.min(20 * 2 ** attempt, 300));
  }
  throw new Conflict('tickets are being opened concurrently; try again');
}

/**
 * The writes that open a new ticket for a conversation with the tenant's next number, the
 * conversation fields they change, and `release` for when they are not written after all. The
 * ticket's time is taken once the lease is held, so numbers and creation times agree.
 */
export async function openTicket(
  tenant: Tenant,
  conv: Conversation,
  reason: string,
  at: string,
  actor: Actor = WIDGET,
) {
  const lease = await leaseNumber(tenant.id);
  const later = clock.iso();
  const now = later > at ? later : at;
  const ticket: Ticket & { number: number } = {
    id: `tkt_${ulid(clock.now())}`,
    number: lease.last + 1,
    conversationId: conv.id,
    status: 'open',
    priority: tenantSettings(tenant.config).defaultPriority as Priority,
    reason,
    createdAt: now,
    updatedAt: now,
    assigneeId: null,
    firstResponseAt: null,
    resolvedAt: null,
  };
  const set = {
    status: 'escalated' as const,
    latestTicketId: ticket.id,
    latestTicketNumber: ticket.number,
    latestTicketStatus: 'open' as const,
    latestTicketAnswered: false,
    latestTicketAssigneeId: null,
  };
  const escalated = { ...conv, ...set, updatedAt: now };
  const items: TxItem[] = [
    ...ticketsRepo.tx.put(tenant.id, ticket, lease),
    auditRepo.tx.put(tenant.id, {
      category: 'ticket',
      action: 'ticket.created',
      actor,
      target: { type: 'ticket', id: ticket.id },
      changes: { status: { from: null, to: 'open' }, priority: { from: null, to: ticket.priority } },
      createdAt: now,
    }),
    statsRepo.tx.addTotals(tenant.id, { openTickets: 1 }),
    events.conversationEscalated(escalated, ticket, now),
    events.ticketCreated(tenant.id, ticket, now),
  ];
  return { ticket, items, set, release: () => ticketsRepo.releaseNumber(tenant.id, lease.owner) };
}

/** Commits a transaction that may hold a ticket-number lease; when it fails, the lease goes back at once. */
export async function commit(items: TxItem[], opened: { release(): Promise<void> } | null) {
  try {
    await transact(items);
  } catch (e) {
    await opened?.release().catch(() => undefined);
    throw e;
  }
}

/** A user message on a conversation whose latest ticket waits or is resolved reopens that ticket. */
export async function reopenTicket(tenant: Tenant, conv: Conversation, now: string, actor: Actor = WIDGET) {
  const from = conv.latestTicketStatus;
  if (!conv.latestTicketId || (from !== 'waiting' && from !== 'resolved')) return null;
  const read = await ticketsRepo.get(tenant.id, conv.latestTicketId, true);
  // The ticket moved since the conversation was read: the transaction's guards make us re-read.
  if (!read || read.status !== from) return { items: [], set: {}, stale: true };
  const ticket: Ticket = { ...read, status: 'open', resolvedAt: null, updatedAt: now };
  const changes = { status: { from, to: 'open' } };
  return {
    items: [
      ticketsRepo.tx.update(tenant.id, read, ticket),
      auditRepo.tx.put(tenant.id, {
        category: 'ticket',
        action: 'ticket.reopened',
        actor,
        target: { type: 'ticket', id: read.id },
        changes,
        createdAt: now,
      }),
      ...(from === 'resolved' ? [statsRepo.tx.addTotals(tenant.id, { openTickets: 1 })] : []),
      events.ticketUpdated(tenant.id, ticket, changes, now),
    ],
    set: { latestTicketStatus: 'open' as const },
    stale: false,
  };
}
