import type { DomainEvent } from '#shared/core/vocabulary.ts';
import type { Conversation, Message } from '#shared/data/conversations.ts';
import { eventsRepo } from '#shared/data/events.ts';
import type { Ticket } from '#shared/data/tickets.ts';

// The events a change writes with it (the outbox), in the shapes the live channel and the
// integrations receive. Each builder returns the transaction item.

/** A conversation as the chat API shows it. */
export const chatConversation = (c: Pick<Conversation, 'id' | 'tenantId' | 'status' | 'createdAt' | 'updatedAt'>) => ({
  id: c.id,
  tenantId: c.tenantId,
  status: c.status,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

/** A message with what staff may see: assistant metadata, the author's id. */
export const fullMessage = ({ id, role, content, createdAt, metadata, author, attachments }: Message) => ({
  id,
  role,
  content,
  createdAt,
  ...(metadata ? { metadata } : {}),
  ...(author ? { author } : {}),
  ...(attachments?.length
    ? { attachments: attachments.map(({ id: a, name, contentType, size }) => ({ id: a, name, contentType, size })) }
    : {}),
});

/**
 * A message as a customer sees it: an agent's name, never their user id or email; of an answer's
 * metadata only what the customer was shown with it (its help articles and their formatting).
 */
export const customerMessage = ({ id, role, content, createdAt, author, metadata }: Message) => ({
  id,
  role,
  content,
  createdAt,
  ...(author ? { author: { name: author.name } } : {}),
  ...(metadata?.sources?.length ? { sources: metadata.sources } : {}),
  ...(metadata?.format ? { format: metadata.format } : {}),
});

export const events = {
  conversationCreated: (c: Conversation, at: string) =>
    eventsRepo.tx.put(c.tenantId, 'conversation.created', { conversation: chatConversation(c) }, at, c.id),
  /** `verified: false` on an email whose sender failed SPF, DKIM or DMARC: never pushed to a customer's socket. */
  messageCreated: (c: Pick<Conversation, 'tenantId' | 'id'>, m: Message) =>
    eventsRepo.tx.put(
      c.tenantId,
      'message.created',
      {
        conversationId: c.id,
        message: fullMessage(m),
        ...(m.email?.verified === false ? { verified: false } : {}),
      },
      m.createdAt,
      c.id,
    ),
  conversationEscalated: (c: Conversation, t: Ticket, at: string) =>
    eventsRepo.tx.put(c.tenantId, 'conversation.escalated', { conversation: chatConversation(c), ticket: t }, at, c.id),
  ticketCreated: (tenantId: string, t: Ticket, at: string) =>
    eventsRepo.tx.put(tenantId, 'ticket.created', { ticket: t }, at, t.conversationId),
  ticketUpdated: (tenantId: string, t: Ticket, changes: Record<string, { from: unknown; to: unknown }>, at: string) =>
    eventsRepo.tx.put(tenantId, 'ticket.updated', { ticket: t, changes }, at, t.conversationId),
  conversationRated: (
    tenantId: string,
    conversationId: string,
    rating: { score: number; comment: string | null; createdAt: string },
  ) => eventsRepo.tx.put(tenantId, 'conversation.rated', { conversationId, rating }, rating.createdAt, conversationId),
  /** The widget key changed: the dispatcher closes the customer sockets opened with an older one (no key in the item). */
  widgetKeyRotated: (tenantId: string, at: string) => eventsRepo.tx.put(tenantId, 'widget_key.rotated', {}, at),
  /** A customer was erased: the dispatcher closes their conversations' sockets (ids only, no personal data). */
  customerErased: (tenantId: string, conversationIds: string[], at: string) =>
    eventsRepo.tx.put(tenantId, 'customer.erased', { conversationIds }, at),
  /** An email came in on a conversation (`from` the sender's address, `verified` its SPF, DKIM and DMARC all passed). */
  emailReceived: (c: Pick<Conversation, 'tenantId' | 'id'>, m: Message, from: string, verified: boolean) =>
    eventsRepo.tx.put(
      c.tenantId,
      'email.received',
      { conversationId: c.id, messageId: m.id, from, verified, subject: m.email?.subject ?? '' },
      m.createdAt,
      c.id,
    ),
  /** An outgoing email bounced hard or was marked as spam; the address is suppressed for the tenant. */
  emailBounced: (
    tenantId: string,
    conversationId: string,
    messageId: string,
    email: string,
    kind: 'bounce' | 'complaint',
    at: string,
  ) => eventsRepo.tx.put(tenantId, 'email.bounced', { conversationId, messageId, email, kind }, at, conversationId),
  /** Signal: the message is to be sent by email (the dispatcher queues it for the sender function). */
  emailSend: (c: Pick<Conversation, 'tenantId' | 'id'>, messageId: string, at: string) =>
    eventsRepo.tx.put(c.tenantId, 'email.send', { conversationId: c.id, messageId }, at, c.id),
};

type Data = Record<string, unknown> & {
  conversationId?: string;
  conversation?: { id: string };
  ticket?: Ticket & Record<string, unknown>;
  message?: Message;
};

/** The conversation an event belongs to, if any. */
export function conversationOf(e: DomainEvent): string | null {
  const d = e.data as Data;
  return d.conversationId ?? d.conversation?.id ?? d.ticket?.conversationId ?? null;
}

/** Whether a customer's socket receives the event at all: not an email that failed its checks (it may be forged). */
export const customerSees = (e: DomainEvent) => (e.data as Data).verified !== false;

/** What a customer's socket receives of an event: no staff ids, no assignee, no NLU metadata. */
export function forCustomer(e: DomainEvent): DomainEvent {
  const d = { ...(e.data as Data) };
  if (d.message) d.message = customerMessage(d.message) as Message;
  if (d.ticket) {
    const { assigneeId, ...ticket } = d.ticket;
    void assigneeId;
    d.ticket = ticket as Ticket & Record<string, unknown>;
  }
  if (d.changes && typeof d.changes === 'object' && 'assigneeId' in d.changes) {
    const { assigneeId, ...changes } = d.changes as Record<string, unknown>;
    void assigneeId;
    d.changes = changes;
  }
  return { ...e, data: d };
}
