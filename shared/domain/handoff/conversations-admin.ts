import type { ConversationStatus } from '#shared/core/vocabulary.ts';
import { conversationsRepo, type Conversation } from '#shared/data/conversations.ts';
import { ticketsRepo } from '#shared/data/tickets.ts';
import { NotFound } from '#shared/core/errors.ts';
import { conversationTitle, visitorView } from '#shared/domain/customers/visitors.ts';
import { visitorConversations } from '#shared/domain/customers/customers.ts';

/** A conversation as the dashboard lists it. */
export const summary = (c: Conversation) => ({
  id: c.id, title: conversationTitle(c), status: c.status, createdAt: c.createdAt, updatedAt: c.updatedAt,
  messageCount: c.messageCount, lastMessagePreview: c.lastMessagePreview, lastIntent: c.lastIntent, visitor: visitorView(c),
});

/** `userId`: the conversations of one verified visitor (the customer panel), newest first, in one page. */
export async function listConversations(tenantId: string, q: { status?: ConversationStatus; userId?: string; limit: number; cursor?: string }) {
  if (q.userId !== undefined) {
    const { items } = await visitorConversations(tenantId, q.userId);
    return { items: items.filter((c) => !q.status || c.status === q.status).slice(0, q.limit).map(summary), nextCursor: null };
  }
  const page = await conversationsRepo.list(tenantId, { status: q.status }, q.limit, q.cursor);
  return { items: page.items.map(summary), nextCursor: page.nextCursor };
}

/** The conversation, all its messages (assistant ones with their NLU metadata) and its tickets. */
export async function getConversationDetail(tenantId: string, conversationId: string) {
  const found = await conversationsRepo.load(tenantId, conversationId);
  if (!found) throw new NotFound('conversation');
  const tickets = await ticketsRepo.batchGet(tenantId, found.ticketIds);
  return {
    conversation: { ...summary(found.conversation), latestTicketId: found.conversation.latestTicketId ?? null },
    messages: found.messages.map(({ id, role, content, createdAt, metadata, author }) =>
      (role === 'assistant' && metadata ? { id, role, content, createdAt, metadata }
        : role === 'agent' && author ? { id, role, content, createdAt, author } : { id, role, content, createdAt })),
    tickets,
  };
}
