import type { Channel, ConversationStage, ConversationStatus } from '#shared/core/vocabulary.ts';
import { conversationsRepo, type Conversation, type Message } from '#shared/data/conversations.ts';
import { objectsRepo } from '#shared/data/objects.ts';
import { liveRepo } from '#shared/data/live.ts';
import { ticketsRepo } from '#shared/data/tickets.ts';
import { labelKey, labelsRepo } from '#shared/data/labels.ts';
import { NotFound } from '#shared/core/errors.ts';
import { conversationTitle, visitorView } from '#shared/domain/customers/visitors.ts';
import { visitorConversations } from '#shared/domain/customers/customers.ts';
import { replyTarget } from './reply-to.ts';
import { stageOf } from './tickets-rules.ts';

/** A conversation as the dashboard lists it. */
export const summary = (c: Conversation) => ({
  id: c.id,
  title: conversationTitle(c),
  status: c.status,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  messageCount: c.messageCount,
  lastMessagePreview: c.lastMessagePreview,
  lastIntent: c.lastIntent,
  visitor: visitorView(c),
  labels: c.labels ?? [],
  channel: c.channel ?? ('widget' as Channel),
  subject: c.subject ?? null,
  lastCustomerMessageAt: c.lastCustomerMessageAt ?? c.createdAt,
  rating: c.rating ?? null,
  ticket:
    c.latestTicketId && c.latestTicketStatus
      ? {
          id: c.latestTicketId,
          number: c.latestTicketNumber ?? null,
          status: c.latestTicketStatus,
          assigneeId: c.latestTicketAssigneeId ?? null,
        }
      : null,
  stage: stageOf(c),
});

/**
 * `userId` or `email`: the conversations of one verified customer (the customer panel), newest first, in one page.
 * `label`: the conversations carrying it, newest first; with `status` too, a page holds those of the
 * label's page that have that status (it may be shorter than `limit` while `nextCursor` goes on).
 */
export async function listConversations(
  tenantId: string,
  q: {
    status?: ConversationStatus;
    stage?: ConversationStage;
    userId?: string;
    email?: string;
    label?: string;
    channel?: Channel;
    limit: number;
    cursor?: string;
  },
) {
  const key = q.label === undefined ? undefined : labelKey(q.label);
  const keep = (c: Conversation) =>
    (!q.status || c.status === q.status) &&
    (!key || (c.labels ?? []).some((l) => labelKey(l) === key)) &&
    (!q.channel || (c.channel ?? 'widget') === q.channel) &&
    (!q.stage || stageOf(c) === q.stage);
  if (q.userId !== undefined || q.email !== undefined) {
    const { items } = await visitorConversations(
      tenantId,
      q.userId !== undefined ? { userId: q.userId } : { email: q.email! },
    );
    return { items: items.filter(keep).slice(0, q.limit).map(summary), nextCursor: null };
  }
  if (q.label !== undefined) {
    const page = await labelsRepo.conversationIds(
      tenantId,
      q.label,
      { label: key, status: q.status },
      q.limit,
      q.cursor,
    );
    const found = new Map((await conversationsRepo.batchGet(tenantId, page.items)).map((c) => [c.id, c]));
    const items = page.items.flatMap((id) => {
      const c = found.get(id);
      return c && keep(c) ? [summary(c)] : [];
    });
    return { items, nextCursor: page.nextCursor };
  }
  // A ticket that waits (on either side) keeps its conversation escalated: those are read from that status's list.
  const waiting = q.stage === 'waiting_for_us' || q.stage === 'waiting_for_customer';
  const status = q.status ?? (waiting ? 'escalated' : undefined);
  const page = await conversationsRepo.list(
    tenantId,
    { status, ...(q.channel ? { channel: q.channel } : {}) },
    q.limit,
    q.cursor,
  );
  return { items: (q.stage ? page.items.filter(keep) : page.items).map(summary), nextCursor: page.nextCursor };
}

/** The conversation, all its messages (assistant ones with their NLU metadata) and its tickets. */
export async function getConversationDetail(tenantId: string, conversationId: string) {
  const found = await conversationsRepo.load(tenantId, conversationId);
  if (!found) throw new NotFound('conversation');
  // The tickets and whether the customer is live (the reply box's "has it open now"), in one BatchGet.
  const widget = found.conversation.channel !== 'email';
  const { tickets, also } = await ticketsRepo.batchGetWith(
    tenantId,
    found.ticketIds,
    widget ? liveRepo.customerMarks(tenantId, conversationId) : null,
  );
  const replyTo = replyTarget(found.conversation, widget && liveRepo.liveIn(also));
  return {
    conversation: { ...summary(found.conversation), latestTicketId: found.conversation.latestTicketId ?? null },
    replyTo,
    messages: await Promise.all(
      found.messages.map(async (m) => {
        const { id, role, content, createdAt, metadata, author } = m;
        const base =
          role === 'assistant' && metadata
            ? { id, role, content, createdAt, metadata }
            : role === 'agent' && author
              ? { id, role, content, createdAt, author }
              : { id, role, content, createdAt };
        const delivery = found.deliveries.get(id);
        return {
          ...base,
          ...(await emailParts(m, found.conversation.visitor?.emailVerified ?? false)),
          ...(delivery ? { delivery } : {}),
        };
      }),
    ),
    tickets,
  };
}

const INLINE = /^image\/(png|jpeg|gif|webp)$/;

/** An email message's files and original as short-lived links (presigned), never their bytes. */
async function emailParts(m: Message, threadVerified: boolean) {
  const attachments = m.attachments?.length
    ? await Promise.all(
        m.attachments.map(async (a) => ({
          id: a.id,
          name: a.name,
          contentType: a.contentType,
          size: a.size,
          url: await objectsRepo.link(a.key, a.name, INLINE.test(a.contentType)),
        })),
      )
    : null;
  const e = m.email?.from
    ? {
        from: m.email.from,
        subject: m.email.subject ?? '',
        trimmed: m.email.trimmed ?? false,
        automatic: m.email.automatic ?? false,
        // A message stored before verdicts were kept per message has its thread's.
        verified: m.email.verified ?? threadVerified,
        verdicts: m.email.verdicts ?? null,
        originalUrl: m.email.rawKey ? await objectsRepo.link(m.email.rawKey, 'message.eml', false) : null,
      }
    : null;
  return { ...(attachments ? { attachments } : {}), ...(e ? { email: e } : {}) };
}
