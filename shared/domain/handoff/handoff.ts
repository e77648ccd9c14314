import { Conflict, NotFound } from '#shared/core/errors.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import {
  conversationsRepo,
  preview,
  type Conversation,
  type Message,
  type Rating,
} from '#shared/data/conversations.ts';
import { statsRepo, utcDay } from '#shared/data/stats.ts';
import { ticketsRepo, type Ticket } from '#shared/data/tickets.ts';
import { retrying, transact, type TxItem } from '#shared/data/tx.ts';
import { events } from '#shared/domain/events.ts';
import { secondsBetween } from './tickets.ts';
import { widgetConversation } from '#shared/domain/tenants/widget-auth.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { asRateLimited, perMinute } from '#shared/domain/windows.ts';
import { ratingMarks } from '#shared/domain/unanswered-marks.ts';
import { laterThan } from '#shared/core/time.ts';
import { emailRepo, newReplyToken } from '#shared/data/email.ts';
import { replyEmail } from './reply-to.ts';
import { newId } from '#shared/core/clock.ts';

// The person's side of a handoff: agents answer in the conversation, and the customer rates it.

const AGENT_ATTEMPTS = 16;

/**
 * An agent's message. The first one on the conversation's latest ticket sets its first response and
 * moves an `open` ticket to `in_progress` (audited as the agent); only that one reads the ticket,
 * the conversation says when it is answered. Concurrent messages of one conversation commit one
 * at a time, each after the last, so they arrive in `createdAt` order.
 */
export function postAgentMessage(
  tenantId: string,
  actor: Actor,
  author: { id: string; name: string },
  conversationId: string,
  content: string,
) {
  return retrying(
    async () => {
      const conv = await conversationsRepo.get(tenantId, conversationId, true);
      if (!conv) throw new NotFound('conversation');
      if (conv.status === 'closed') throw new Conflict('this conversation is closed', 'CONVERSATION_CLOSED');
      const unanswered = conv.latestTicketId && !conv.latestTicketAnswered && conv.latestTicketStatus !== 'closed';
      const ticket = unanswered ? await ticketsRepo.get(tenantId, conv.latestTicketId!, true) : null;
      const createdAt = laterThan(conv.updatedAt);
      const message: Message = { id: newId(), role: 'agent', content, createdAt, author };
      const items: TxItem[] = [
        conversationsRepo.tx.message(tenantId, conv.id, message, 3),
        events.messageCreated(conv, message),
      ];
      let set: Partial<Conversation> = { updatedAt: createdAt, lastMessagePreview: preview(content) };
      // An email conversation's reply goes out by email, through the outbox and the sender function;
      // so does a widget one's while its customer is away, to the address they left for it.
      const emailTo = await replyEmail(tenantId, conv);
      let emailed = false;
      if (emailTo) {
        if (await emailRepo.isSuppressed(tenantId, emailTo)) {
          if (conv.channel === 'email')
            throw new Conflict(
              `${emailTo} bounced or complained; this tenant sends it no more email`,
              'EMAIL_SUPPRESSED',
            );
        } else {
          items.push(
            emailRepo.tx.delivery(tenantId, conv.id, message.id, emailTo, createdAt),
            events.emailSend(conv, message.id, createdAt),
          );
          emailed = true;
          // The thread's reply address (and the answer's way back into this conversation), made with the first such email.
          if (!conv.email) {
            set.email = { customer: emailTo, token: newReplyToken() };
            items.push(emailRepo.tx.token(tenantId, set.email.token, conv.id));
          } else if (conv.email.customer !== emailTo) set.email = { ...conv.email, customer: emailTo };
        }
      }
      if (ticket) set.latestTicketAnswered = true;
      set.lastAgentMessageAt = createdAt;

      if (ticket && ticket.firstResponseAt === null && ticket.status !== 'closed') {
        const next: Ticket = {
          ...ticket,
          firstResponseAt: createdAt,
          updatedAt: createdAt,
          status: ticket.status === 'open' ? 'in_progress' : ticket.status,
        };
        const changes: Record<string, { from: unknown; to: unknown }> = {
          firstResponseAt: { from: null, to: createdAt },
        };
        if (next.status !== ticket.status) changes.status = { from: ticket.status, to: next.status };
        items.push(
          ticketsRepo.tx.update(tenantId, ticket, next),
          auditRepo.tx.put(tenantId, {
            category: 'ticket',
            action: 'ticket.updated',
            actor,
            target: { type: 'ticket', id: ticket.id },
            changes,
            createdAt,
          }),
          statsRepo.tx.addDay(tenantId, utcDay(createdAt), ticket.id, {
            firstResponses: 1,
            firstResponseSecondsSum: secondsBetween(ticket.createdAt, createdAt),
          }),
        );
        // The event table names status, priority and assignee changes; a first response alone is not one.
        if (changes.status) items.push(events.ticketUpdated(tenantId, next, changes, createdAt));
        if (changes.status && conv.latestTicketId === ticket.id) set = { ...set, latestTicketStatus: next.status };
      }
      items.unshift(conversationsRepo.tx.update(conv, set, { messageCount: 1 }, { unchangedSince: true }));
      await transact(items);
      return {
        message: {
          id: message.id,
          role: message.role,
          content,
          createdAt,
          author,
          ...(emailed ? { delivery: { status: 'sending' as const } } : {}),
        },
      };
    },
    { attempts: AGENT_ATTEMPTS, conflict: 'the conversation changed concurrently; try again', jitterMs: 20 },
  );
}

/** A customer rates the conversation, 1 to 5; a later rating replaces the earlier one in the statistics too. */
export function rateConversation(
  tenantId: string,
  conversationId: string,
  input: { score: number; comment?: string | undefined },
  origin?: string,
) {
  return retrying(
    async () => {
      const conv = await widgetConversation(tenantId, conversationId, origin);
      if (!conv.latestTicketId) throw new Conflict('only a conversation that has had a ticket can be rated');
      const old = conv.rating;
      // The same rating again changes nothing, so it writes nothing and emits no event.
      if (old && old.score === input.score && old.comment === (input.comment ?? null)) return { rating: old };
      const rating: Rating = {
        score: input.score,
        comment: input.comment ?? null,
        createdAt: laterThan(conv.rating?.createdAt ?? ''),
      };
      const day = utcDay(rating.createdAt);
      const counter = perMinute(
        tenantId,
        `rating#${conv.id}`,
        LIMITS.ratingsPerConversation,
        new Date(rating.createdAt),
        'ratings per conversation',
      );
      // One item takes one operation per transaction: a same-day replacement is one net change.
      const sameDay = old !== undefined && utcDay(old.createdAt) === day;
      const items: TxItem[] = [
        conversationsRepo.tx.update(conv, { rating }, {}),
        statsRepo.tx.addDay(
          tenantId,
          day,
          conv.id,
          sameDay ? { ratings: 0, ratingSum: rating.score - old.score } : { ratings: 1, ratingSum: rating.score },
        ),
        events.conversationRated(tenantId, conv.id, rating),
        counter.item,
      ];
      if (old && !sameDay)
        items.push(
          statsRepo.tx.addDay(tenantId, utcDay(old.createdAt), conv.id, { ratings: -1, ratingSum: -old.score }),
        );
      items.push(...(await ratingMarks(tenantId, conv, rating.score)));
      try {
        await transact(items);
      } catch (e) {
        throw asRateLimited(e, items, [counter]);
      }
      return { rating };
    },
    { attempts: 6, conflict: 'the conversation changed concurrently; try again' },
  );
}
