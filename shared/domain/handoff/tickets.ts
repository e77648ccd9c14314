import { auditRepo } from '#shared/data/audit.ts';
import { conversationsRepo, type Conversation } from '#shared/data/conversations.ts';
import { membersRepo } from '#shared/data/members.ts';
import { statsRepo, utcDay } from '#shared/data/stats.ts';
import { ticketsRepo, type Ticket } from '#shared/data/tickets.ts';
import { retrying, transact, type TxItem } from '#shared/data/tx.ts';
import { fieldError, InvalidTransition, NotFound } from '#shared/core/errors.ts';
import type { Actor, Priority, TicketStatus } from '#shared/core/vocabulary.ts';
import { canMove, isActive } from './tickets-rules.ts';
import { summary } from './conversations-admin.ts';
import { conversationTitle, visitorView } from '#shared/domain/customers/visitors.ts';
import { events } from '#shared/domain/events.ts';
import { laterThan } from '#shared/core/time.ts';
import { keys } from '#shared/data/keys.ts';
import { namedEntries } from '#shared/domain/tenants/audit-names.ts';

export interface TicketPatch {
  status?: TicketStatus;
  priority?: Priority;
  assigneeId?: string | null;
}
type Changes = Record<string, { from: unknown; to: unknown }>;

/**
 * What a PATCH does to a ticket, decided on the values read: the fields that really change, or
 * InvalidTransition for the whole request (one forbidden part changes nothing). Pure.
 */
export function planTicketChange(t: Pick<Ticket, 'status' | 'priority' | 'assigneeId'>, patch: TicketPatch): Changes {
  const changes: Changes = {};
  if (patch.status !== undefined && patch.status !== t.status) {
    if (!canMove(t.status, patch.status))
      throw new InvalidTransition(`a ${t.status} ticket cannot move to ${patch.status}`);
    changes.status = { from: t.status, to: patch.status };
  }
  if (patch.priority !== undefined && patch.priority !== t.priority) {
    if (t.status === 'closed') throw new InvalidTransition('a closed ticket changes no more');
    changes.priority = { from: t.priority, to: patch.priority };
  }
  if (patch.assigneeId !== undefined && patch.assigneeId !== t.assigneeId) {
    if (t.status === 'closed') throw new InvalidTransition('a closed ticket changes no more');
    changes.assigneeId = { from: t.assigneeId, to: patch.assigneeId };
  }
  return changes;
}

/**
 * The conversation fields a ticket's change moves (its status, and the latest ticket's status and
 * assignee the inbox shows), or null when the conversation is untouched.
 */
export function conversationEffect(
  c: Conversation,
  ticketId: string,
  from: TicketStatus,
  to: TicketStatus,
  now: string,
  assigneeId?: string | null,
) {
  const closing = to === 'closed' && from !== 'closed';
  const set: Partial<Pick<Conversation, 'status' | 'latestTicketStatus' | 'latestTicketAssigneeId' | 'updatedAt'>> = {};
  if (c.latestTicketId === ticketId && c.latestTicketStatus !== to) set.latestTicketStatus = to;
  if (c.latestTicketId === ticketId && assigneeId !== undefined && c.latestTicketAssigneeId !== assigneeId)
    set.latestTicketAssigneeId = assigneeId;
  // Every ticket of the conversation closed: the conversation closes with it.
  if (closing && c.unclosedTickets <= 1) {
    set.status = 'closed';
    set.updatedAt = now;
  }
  if (!closing && Object.keys(set).length === 0) return null;
  return { set, closing };
}

const ATTEMPTS = 12;

export const secondsBetween = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);

/**
 * An assignee must be an active member of the tenant (a member's id is their user id): read beside
 * the ticket for a clear 400, and checked again in the transaction, so that a member removed
 * meanwhile is never assigned (the retry reads them gone).
 */
const assigneeOf = (tenantId: string, patch: TicketPatch) =>
  patch.assigneeId ? membersRepo.get(tenantId, patch.assigneeId) : Promise.resolve(null);

export function updateTicket(tenantId: string, actor: Actor, ticketId: string, patch: TicketPatch) {
  // A concurrent change to the ticket or its conversation: re-read and re-apply on the new state.
  return retrying(
    async () => {
      const [read, assignee] = await Promise.all([
        ticketsRepo.getWithConversation(tenantId, ticketId),
        assigneeOf(tenantId, patch),
      ]);
      if (!read) throw new NotFound('ticket');
      const { ticket, conversation } = read;
      const changes = planTicketChange(ticket, patch);
      if (Object.keys(changes).length === 0) return { ticket };
      const assigning = changes.assigneeId !== undefined && patch.assigneeId ? patch.assigneeId : null;
      if (assigning && assignee?.status !== 'active') {
        throw fieldError('assigneeId', 'must be the user id of an active member of the tenant');
      }

      // After the version it changes, even within the same millisecond: the trail is read in time order.
      const now = laterThan(ticket.updatedAt);
      const status = patch.status ?? ticket.status;
      const resolving = status === 'resolved' && ticket.status !== 'resolved';
      const next: Ticket = {
        ...ticket,
        status,
        priority: patch.priority ?? ticket.priority,
        updatedAt: now,
        assigneeId: patch.assigneeId === undefined ? ticket.assigneeId : patch.assigneeId,
        // Kept while the ticket stays resolved or is closed after it; cleared when it reopens.
        resolvedAt: resolving ? now : status === 'resolved' || status === 'closed' ? ticket.resolvedAt : null,
      };
      const items: TxItem[] = [
        ticketsRepo.tx.update(tenantId, ticket, next),
        auditRepo.tx.put(tenantId, {
          category: 'ticket',
          action: 'ticket.updated',
          actor,
          target: { type: 'ticket', id: ticket.id },
          changes,
          createdAt: now,
        }),
        events.ticketUpdated(tenantId, next, changes, now),
      ];
      if (assigning) items.push(membersRepo.tx.activeCheck(tenantId, assigning));
      if (resolving) {
        items.push(
          statsRepo.tx.addDay(tenantId, utcDay(now), ticket.id, {
            resolutions: 1,
            resolutionSecondsSum: secondsBetween(ticket.createdAt, now),
          }),
        );
      }
      if (isActive(ticket.status) !== isActive(next.status))
        items.push(statsRepo.tx.addTotals(tenantId, { openTickets: isActive(next.status) ? 1 : -1 }));
      if (conversation && (changes.status || changes.assigneeId)) {
        const effect = conversationEffect(conversation, ticket.id, ticket.status, next.status, now, next.assigneeId);
        if (effect) items.push(conversationsRepo.tx.ticketChange(conversation, effect.set, effect.closing));
      }
      await transact(items);
      return { ticket: next };
    },
    { attempts: ATTEMPTS, conflict: 'the ticket changed concurrently; try again', jitterMs: 10 },
  );
}

export async function getTicket(tenantId: string, ticketId: string) {
  const found = await ticketsRepo.getWithTrail(tenantId, ticketId);
  if (!found) throw new NotFound('ticket');
  // The conversation comes in the BatchGet that names the trail: one round trip for both.
  const key = keys.conversation(tenantId, found.ticket.conversationId);
  const named = await namedEntries(tenantId, found.auditTrail, [key]);
  const item = named.also.get(`${key.pk}|${key.sk}`);
  const conversation = item ? conversationsRepo.fromItem(item) : null;
  return { ticket: found.ticket, conversation: conversation ? summary(conversation) : null, auditTrail: named.entries };
}

/** Each ticket with its customer (the conversation's visitor and title), read in one BatchGet. */
async function withCustomers(tenantId: string, tickets: Ticket[]) {
  const convs = new Map(
    (
      await conversationsRepo.batchGet(
        tenantId,
        tickets.map((t) => t.conversationId),
      )
    ).map((c) => [c.id, c]),
  );
  return tickets.map((t) => {
    const c = convs.get(t.conversationId);
    return { ...t, visitor: c ? visitorView(c) : null, conversationTitle: c ? conversationTitle(c) : null };
  });
}

/**
 * `assignee`: `me` (the caller), `none` (unassigned) or a user id. `number` finds the one ticket
 * with that number (the other filters still apply to it).
 */
export async function listTickets(
  tenantId: string,
  actor: Actor,
  q: { status?: TicketStatus; priority?: Priority; assignee?: string; number?: number; limit: number; cursor?: string },
) {
  const assignee =
    q.assignee === undefined ? undefined : q.assignee === 'none' ? null : q.assignee === 'me' ? actor.id : q.assignee;
  if (q.number !== undefined) {
    const t = await ticketsRepo.byNumber(tenantId, q.number);
    const fits =
      t &&
      (!q.status || t.status === q.status) &&
      (!q.priority || t.priority === q.priority) &&
      (assignee === undefined || t.assigneeId === assignee);
    return { items: await withCustomers(tenantId, fits ? [t] : []), nextCursor: null };
  }
  const page = await ticketsRepo.list(
    tenantId,
    { status: q.status, priority: q.priority, ...(assignee === undefined ? {} : { assignee }) },
    q.limit,
    q.cursor,
  );
  return { items: await withCustomers(tenantId, page.items), nextCursor: page.nextCursor };
}
