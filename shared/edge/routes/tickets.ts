import * as z from 'zod/mini';
import { PRIORITIES, TICKET_STATUSES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { pageQuery } from '../schema.ts';
import { AuditEntry } from './audit.ts';
import { ConversationSummary, ConversationTitle, Page, TicketId, Timestamp, Visitor } from './common.ts';

export const TicketStatus = z.enum(TICKET_STATUSES);
export const TicketPriority = z.enum(PRIORITIES);

export const TicketParams = z.strictObject({ id: TicketId });
const UserId = z
  .string()
  .check(z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'));
export const ListTicketsQuery = z.strictObject({
  status: z.optional(TicketStatus),
  priority: z.optional(TicketPriority),
  assignee: z.optional(UserId.check(z.describe("`me`, `none` (unassigned) or a member's user id"))),
  number: z.optional(
    z
      .pipe(
        z.pipe(
          z.string().check(z.regex(/^[1-9][0-9]{0,9}$/, 'must be a ticket number (a whole number from 1)')),
          z.transform(Number),
        ),
        z.number().check(z.int()),
      )
      .check(z.describe("the ticket with this number (the customer's `#1042`)")),
  ),
  ...pageQuery,
});
export const PatchTicketBody = z
  .strictObject({
    status: z.optional(TicketStatus),
    priority: z.optional(TicketPriority),
    assigneeId: z.optional(z.nullable(UserId)).check(z.describe("an active member's user id, or null to unassign")),
  })
  .check(
    z.refine((b) => b.status !== undefined || b.priority !== undefined || b.assigneeId !== undefined, {
      message: 'give status, priority or assigneeId',
    }),
  );

export const Ticket = z.object({
  id: TicketId,
  number: z
    .nullable(z.number().check(z.int(), z.gte(1)))
    .check(
      z.describe(
        '1, 2, 3... per tenant in creation order, never reused; what the customer sees as `#1042`. Null only on a ticket made before ' +
          'numbering, until the numbering script has run',
      ),
    ),
  conversationId: z.uuid(),
  status: TicketStatus,
  priority: TicketPriority,
  reason: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  assigneeId: z.nullable(z.string()),
  firstResponseAt: z.nullable(Timestamp),
  resolvedAt: z.nullable(Timestamp),
});
export const TicketListItem = z.extend(Ticket, {
  visitor: z.nullable(Visitor).check(z.describe("the customer of the ticket's conversation")),
  conversationTitle: z.nullable(ConversationTitle),
});
export const TicketPage = Page(TicketListItem);
export const PatchTicketResponse = z.object({ ticket: Ticket });
export const TicketDetail = z.object({
  ticket: Ticket,
  conversation: z.nullable(ConversationSummary),
  auditTrail: z.array(AuditEntry),
});

export const listTickets = declareAdmin('GET', '/tickets', 'list-tickets', 'viewer', {
  table: 'read',
  query: ListTicketsQuery,
  response: TicketPage,
  status: 200,
  summary: 'Tickets, newest first',
  description:
    'Filters combine: `status`, `priority` and `assignee` (`me`, `none` or a user id). `number` finds the ticket with ' +
    "that number (an empty page when none has it). Each item carries its conversation's `visitor` and `conversationTitle`.",
});

export const getTicket = declareAdmin('GET', '/tickets/{id}', 'get-ticket', 'viewer', {
  table: 'read',
  params: TicketParams,
  status: 200,
  summary: 'A ticket with its conversation and audit trail',
  response: TicketDetail,
});

export const patchTicket = declareAdmin('PATCH', '/tickets/{id}', 'patch-ticket', 'agent', {
  table: 'write',
  params: TicketParams,
  body: PatchTicketBody,
  status: 200,
  response: PatchTicketResponse,
  conflicts: ['INVALID_TRANSITION'],
  summary: "Change a ticket's status, priority or assignee",
  description:
    'Transitions: open → in_progress, waiting, resolved, closed; in_progress → open, waiting, resolved, closed; ' +
    'waiting → in_progress, resolved, closed; resolved → open, closed; closed → none (409 `INVALID_TRANSITION`, priority too). ' +
    'Setting the current value again changes nothing. A request with one forbidden part changes nothing. ' +
    'An audit entry records each change. An assignee must be an active member (400 otherwise); resolving sets `resolvedAt`.',
});

export const routes = [listTickets, getTicket, patchTicket];
