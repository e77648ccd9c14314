import * as z from 'zod/mini';
import { PRIORITIES, TICKET_STATUSES } from '#shared/domain/tickets-rules.ts';
import { pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';
import { AuditEntry } from './audit.ts';
import { ConversationSummary } from './conversations.ts';

export const TicketStatus = z.enum(TICKET_STATUSES);
export const TicketPriority = z.enum(PRIORITIES);
/** `tkt_` + a 26-character ULID (Crockford base32). */
export const TicketId = z.string().check(z.regex(/^tkt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ticket id (tkt_ and a 26-character ULID)'));

export const TicketParams = z.strictObject({ id: TicketId });
export const ListTicketsQuery = z.strictObject({ status: z.optional(TicketStatus), priority: z.optional(TicketPriority), ...pageQuery });
export const PatchTicketBody = z.strictObject({ status: z.optional(TicketStatus), priority: z.optional(TicketPriority) })
  .check(z.refine((b) => b.status !== undefined || b.priority !== undefined, { message: 'give status, priority or both' }));

export const Ticket = z.object({
  id: TicketId, conversationId: z.uuid(), status: TicketStatus, priority: TicketPriority, reason: z.string(),
  createdAt: Timestamp, updatedAt: Timestamp,
});
export const TicketPage = Page(Ticket);
export const PatchTicketResponse = z.object({ ticket: Ticket });
// Getters: conversations.ts and this module import each other.
export const TicketDetail = z.object({
  ticket: Ticket,
  get conversation() { return z.nullable(ConversationSummary); },
  auditTrail: z.array(AuditEntry),
});
