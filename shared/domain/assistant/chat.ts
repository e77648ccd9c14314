import { randomUUID } from 'node:crypto';
import { ulid } from 'ulid';
import { Conflict, NotFound, RateLimited } from '#shared/core/errors.ts';
import { METRIC } from '#shared/core/metric-names.ts';
import { count } from '#shared/core/metrics.ts';
import { KNOWLEDGE_INTENT, type Actor, type Priority, type TicketStatus } from '#shared/core/vocabulary.ts';
import { articlesRepo } from '#shared/data/articles.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { customersRepo } from '#shared/data/customers.ts';
import { conversationsRepo, preview, type Conversation, type Message, type Metadata } from '#shared/data/conversations.ts';
import { intentsRepo } from '#shared/data/intents.ts';
import { keys } from '#shared/data/keys.ts';
import { statsRepo, utcDay } from '#shared/data/stats.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { ticketsRepo, type NumberLease, type Ticket } from '#shared/data/tickets.ts';
import { retrying, sleep, transact, TxConditionFailed, type TxItem } from '#shared/data/tx.ts';
import { decide } from './assistant.ts';
import { unansweredWrite } from './unanswered.ts';
import { chatConversation, customerMessage, events } from '#shared/domain/events.ts';
import { availability, tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { backAt } from '#shared/domain/tenants/business-hours.ts';
import { nextVisitor, visitorOf, type VisitorInput } from '#shared/domain/customers/visitors.ts';
import { isActive } from '#shared/domain/handoff/tickets-rules.ts';
import { assertOrigin, freshTenant } from '#shared/domain/tenants/widget-auth.ts';
import { asRateLimited, LIMITS, perMinute } from '#shared/domain/limits.ts';

const ATTEMPTS = 6;
const WIDGET = { type: 'widget' as const, id: 'widget' };

/** What the customer reads on escalation: the ticket's number, and when the team is away, when it is back. */
function escalationText(number: number | null, away: { online: boolean; nextOpenAt: string | null; timezone: string | null }, email: string | null) {
  const ref = number === null ? 'Your request is with them' : `Your ticket number is #${number}`;
  if (away.online) return `I've passed this conversation to our support team. ${ref}; a person will get back to you here.`;
  const back = away.nextOpenAt && away.timezone ? ` and back ${backAt(away.nextOpenAt, away.timezone)}` : '';
  const reach = email ? `we'll answer here and at ${email}` : 'leave your email address and we\'ll answer there too';
  return `I've passed this conversation to our support team. ${ref}. The team is away right now${back}; ${reach}.`;
}

/**
 * Reads the tenant (fresh: its config and intents version, and so its allowed origins) and, if
 * given, the conversation, in one round trip.
 */
async function readState(tenantId: string, origin: string | undefined, conversationId: string | undefined) {
  if (!conversationId) return { tenant: await freshTenant(tenantId, origin), conversation: null };
  const r = await tenantsRepo.getWith<Conversation>(tenantId, keys.conversation(tenantId, conversationId));
  if (!r.tenant) return { tenant: await freshTenant(tenantId, origin), conversation: null };
  assertOrigin(r.tenant, origin);
  if (!r.other) throw new NotFound('conversation');
  return { tenant: r.tenant, conversation: r.other };
}

const LEASE_MS = 8000;

/** Waits for the tenant's ticket-number lease, backing off while another escalation holds it. */
async function leaseNumber(tenantId: string): Promise<NumberLease> {
  const owner = ulid();
  const until = Date.now() + LEASE_MS + 1000;
  for (let attempt = 0; Date.now() < until; attempt++) {
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
export async function openTicket(tenant: Tenant, conv: Conversation, reason: string, at: string, actor: Actor = WIDGET) {
  const lease = await leaseNumber(tenant.id);
  const later = new Date().toISOString();
  const now = later > at ? later : at;
  const ticket: Ticket & { number: number } = {
    id: `tkt_${ulid()}`, number: lease.last + 1, conversationId: conv.id, status: 'open',
    priority: tenantSettings(tenant.config).defaultPriority as Priority, reason, createdAt: now, updatedAt: now,
    assigneeId: null, firstResponseAt: null, resolvedAt: null,
  };
  const set = {
    status: 'escalated' as const, latestTicketId: ticket.id, latestTicketNumber: ticket.number, latestTicketStatus: 'open' as const, latestTicketAnswered: false,
  };
  const escalated = { ...conv, ...set, updatedAt: now };
  const items: TxItem[] = [
    ...ticketsRepo.tx.put(tenant.id, ticket, lease),
    auditRepo.tx.put(tenant.id, {
      category: 'ticket', action: 'ticket.created', actor, target: { type: 'ticket', id: ticket.id },
      changes: { status: { from: null, to: 'open' }, priority: { from: null, to: ticket.priority } }, createdAt: now,
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
        category: 'ticket', action: 'ticket.reopened', actor, target: { type: 'ticket', id: read.id }, changes, createdAt: now,
      }),
      ...(from === 'resolved' ? [statsRepo.tx.addTotals(tenant.id, { openTickets: 1 })] : []),
      events.ticketUpdated(tenant.id, ticket, changes, now),
    ],
    set: { latestTicketStatus: 'open' as const },
    stale: false,
  };
}

const retryAfterMinute = (now: Date) => 60 - now.getUTCSeconds();

/** Tickets opened from one address, by POST /escalate or by a message whose intent escalates. */
const escalationCounter = (tenantId: string, sourceIp: string, now: Date) =>
  perMinute(tenantId, `escalate#${sourceIp}`, LIMITS.escalationsPerAddress, now, 'escalations from one address');

/** The windows a new conversation counts in: its key's, per source address (the tenant may raise it) and in all. */
function newConversationCounters(tenant: Tenant, sourceIp: string, now: Date) {
  const set = (tenant.config.widget as Record<string, unknown> | undefined)?.newConversationsPerMinute;
  const perAddress = typeof set === 'number' ? set : LIMITS.newConversationsPerAddress;
  return [
    perMinute(tenant.id, `newconv#${sourceIp}`, perAddress, now, 'new conversations from one address'),
    perMinute(tenant.id, 'newconv', LIMITS.newConversationsPerKey, now, 'new conversations per widget key'),
  ];
}

/**
 * A customer's message and the assistant's answer. While a person handles the conversation (its
 * latest ticket is in progress) the assistant stays silent: the message is stored and classified
 * for the statistics, and nothing answers it but the person.
 */
export function sendMessage(
  tenantId: string, input: { conversationId?: string; message: string; visitor?: VisitorInput }, origin: string | undefined, sourceIp: string,
) {
  // The conversation or its ticket changed since we read it: read again and redo.
  return retrying(async () => {
    const { tenant, conversation: read } = await readState(tenantId, origin, input.conversationId);
    const visitor = visitorOf(tenant, input.visitor);
    if (read?.status === 'closed') throw new Conflict('this conversation is closed', 'CONVERSATION_CLOSED');
    if (read && read.userMessageCount >= LIMITS.userMessagesPerConversation) {
      throw new Conflict(`a conversation takes at most ${LIMITS.userMessagesPerConversation} user messages`);
    }
    const silent = read?.latestTicketStatus === 'in_progress';
    // Silent: nobody answers, so no article is searched (nor counted as having answered).
    const { nlu, knowledge: kb } = await decide(tenant, input.message, !silent);

    const nowDate = new Date();
    const now = nowDate.toISOString();
    const conv: Conversation = read ?? {
      id: randomUUID(), tenantId: tenant.id, status: 'active', createdAt: now, updatedAt: now,
      messageCount: 0, userMessageCount: 0, lastMessagePreview: '', lastIntent: null, unclosedTickets: 0,
    };
    const items: TxItem[] = [];
    const newVisitor = nextVisitor(read?.visitor, visitor);
    let set: Partial<Conversation> = newVisitor ? { visitor: newVisitor } : {};
    let ticketId: string | undefined;
    let ticketNumber: number | null = null;
    let newTicket = false;
    let opened: { release(): Promise<void> } | null = null;

    const reopen = read && !silent ? await reopenTicket(tenant, conv, now) : null;
    if (reopen?.stale) throw new TxConditionFailed([]);
    if (reopen) { items.push(...reopen.items); set = { ...set, ...reopen.set }; }
    let reply = kb ? kb.reply : nlu.reply;
    if (!silent && nlu.intent?.action === 'escalate') {
      const latestActive = conv.latestTicketId && (reopen || (conv.latestTicketStatus && isActive(conv.latestTicketStatus)));
      if (latestActive) {
        ticketId = conv.latestTicketId;
        ticketNumber = await numberOf(tenant.id, conv);
      } else {
        const t = await openTicket(tenant, { ...conv, ...set }, `Requested in chat: ${preview(input.message)}`, now);
        opened = t;
        items.push(...t.items);
        set = { ...set, ...t.set };
        ticketId = t.ticket.id;
        ticketNumber = t.ticket.number;
        newTicket = true;
      }
      const text = escalationText(ticketNumber, availability(tenant.config ?? {}, nowDate), (set.visitor ?? conv.visitor)?.email ?? null);
      if (ticketNumber === null || !reply.includes(`#${ticketNumber}`)) reply = `${reply} ${text}`.trim();
    }

    const metadata: Metadata = kb
      ? { intentDetected: KNOWLEDGE_INTENT, confidence: kb.confidence, entitiesExtracted: {}, intentRanking: nlu.ranking, sources: kb.sources, ...(kb.format ? { format: kb.format } : {}) }
      : {
        intentDetected: nlu.intent?.name ?? 'fallback',
        confidence: nlu.confidence,
        entitiesExtracted: nlu.entities,
        intentRanking: nlu.ranking,
        ...(nlu.intent ? {} : { sources: [] }),
        ...(ticketId ? { ticketId, ...(ticketNumber === null ? {} : { ticketNumber }) } : {}),
      };
    const userMsg: Message = { id: randomUUID(), role: 'user', content: input.message, createdAt: now };
    const botMsg: Message | null = silent ? null : { id: randomUUID(), role: 'assistant', content: reply, createdAt: now, metadata };
    const stored = botMsg ? 2 : 1;
    const convFields = {
      ...set, updatedAt: now, lastMessagePreview: preview(input.message), lastIntent: metadata.intentDetected,
    };
    const after: Conversation = { ...conv, ...convFields };
    const convItem = read
      ? conversationsRepo.tx.update(read, convFields, { messageCount: stored, userMessageCount: 1, unclosedTickets: newTicket ? 1 : 0 },
        { maxUserMessages: LIMITS.userMessagesPerConversation })
      : conversationsRepo.tx.put({ ...after, messageCount: stored, userMessageCount: 1, unclosedTickets: newTicket ? 1 : 0 });
    const RATE_INDEX = 0;
    items.unshift(conversationsRepo.tx.rateWindow(tenant.id, conv.id, nowDate, LIMITS.messagesPerMinute), convItem);
    // A new conversation counts against its key's per-address and overall windows, in the same transaction.
    const counters = read ? [] : newConversationCounters(tenant, sourceIp, nowDate);
    if (newTicket) counters.push(escalationCounter(tenant.id, sourceIp, nowDate));
    items.push(...counters.map((c) => c.item));
    if (!read) items.push(events.conversationCreated(after, now));
    if (set.visitor?.email) items.push(customersRepo.tx.link(tenant.id, set.visitor.email, conv.id));
    items.push(conversationsRepo.tx.message(tenant.id, conv.id, userMsg, 0), events.messageCreated(conv, userMsg));
    if (botMsg) items.push(conversationsRepo.tx.message(tenant.id, conv.id, botMsg, 1), events.messageCreated(conv, botMsg));
    if (botMsg) items.push(...unansweredWrite(tenant.id, conv, userMsg, metadata));
    items.push(statsRepo.tx.addDay(tenant.id, utcDay(now), conv.id, {
      messages: 1, conversations: read ? 0 : 1, escalations: newTicket ? 1 : 0,
      fallbacks: nlu.intent || kb ? 0 : 1, confidenceSum: metadata.confidence,
      ...(nlu.intent ? { [`i_${nlu.intent.name}`]: 1 } : {}),
      ...(kb ? { knowledgeAnswers: 1, [`a_${kb.articleId}`]: 1 } : {}),
    }, kb ? { [`t_${kb.articleId}`]: kb.title } : {}));
    if (nlu.intent) items.push(intentsRepo.tx.hit(tenant.id, nlu.intent.id, conv.id));
    if (kb) items.push(articlesRepo.tx.hit(tenant.id, kb.articleId, conv.id));

    try {
      await commit(items, opened);
    } catch (e) {
      if (e instanceof TxConditionFailed && e.failed[RATE_INDEX]) {
        throw new RateLimited(`at most ${LIMITS.messagesPerMinute} messages a minute per conversation`, retryAfterMinute(nowDate));
      }
      throw asRateLimited(e, items, counters);
    }
    if (newTicket) count(METRIC.escalations);
    if (!botMsg) return { conversationId: conv.id, message: null, metadata, handledBy: 'agent' as const };
    count(kb ? METRIC.answerArticle : nlu.intent ? METRIC.answerIntent : METRIC.answerFallback);
    return {
      conversationId: conv.id,
      message: { id: botMsg.id, role: botMsg.role, content: botMsg.content, createdAt: botMsg.createdAt },
      metadata,
    };
  }, { attempts: ATTEMPTS, conflict: 'the conversation changed concurrently; try again' });
}

/** The number of the conversation's latest ticket (read from the ticket where the conversation predates numbering). */
async function numberOf(tenantId: string, conv: Conversation): Promise<number | null> {
  if (conv.latestTicketNumber !== undefined) return conv.latestTicketNumber;
  return conv.latestTicketId ? (await ticketsRepo.get(tenantId, conv.latestTicketId))?.number ?? null : null;
}

/**
 * The conversation's latest ticket as the customer sees it: its number and status, from the
 * conversation item (one read of the ticket only where the conversation predates numbering).
 */
async function latestTicket(tenantId: string, conv: Conversation): Promise<{ number: number | null; status: TicketStatus } | null> {
  if (!conv.latestTicketId) return null;
  if (conv.latestTicketNumber !== undefined && conv.latestTicketStatus) return { number: conv.latestTicketNumber, status: conv.latestTicketStatus };
  const t = await ticketsRepo.get(tenantId, conv.latestTicketId);
  return t ? { number: t.number, status: t.status } : null;
}

export async function getConversation(tenantId: string, conversationId: string, origin?: string) {
  const [, found] = await Promise.all([freshTenant(tenantId, origin), conversationsRepo.load(tenantId, conversationId)]);
  if (!found) throw new NotFound('conversation');
  return {
    conversation: chatConversation(found.conversation), ticket: await latestTicket(tenantId, found.conversation),
    messages: found.messages.map(customerMessage),
  };
}

export function escalate(tenantId: string, input: { conversationId: string; reason: string }, origin: string | undefined, sourceIp: string) {
  // Another escalation won the race: the next read finds its ticket and returns it.
  return retrying(async () => {
    const { tenant, conversation } = await readState(tenantId, origin, input.conversationId);
    const conv = conversation!;
    if (conv.status === 'closed') throw new Conflict('this conversation is closed', 'CONVERSATION_CLOSED');
    const nowDate = new Date();
    const away = availability(tenant.config ?? {}, nowDate);
    const email = conv.visitor?.email ?? null;
    const status = { online: away.online, nextOpenAt: away.nextOpenAt, emailRequested: !away.online && !email };
    if (conv.latestTicketId && conv.latestTicketStatus && isActive(conv.latestTicketStatus)) {
      const n = await numberOf(tenant.id, conv);
      return { success: true, ticketId: conv.latestTicketId, ticketNumber: n, message: escalationText(n, away, email), ...status };
    }
    const t = await openTicket(tenant, conv, input.reason, nowDate.toISOString());
    const now = t.ticket.createdAt;
    const text = escalationText(t.ticket.number, away, email);
    const botMsg: Message = { id: randomUUID(), role: 'assistant', content: text, createdAt: now };
    // Only an escalation that opens a ticket counts: asking again for the same ticket writes nothing.
    const counter = escalationCounter(tenant.id, sourceIp, new Date(now));
    const items = [
      conversationsRepo.tx.update(conv, { ...t.set, updatedAt: now }, { messageCount: 1, unclosedTickets: 1 }),
      ...t.items,
      conversationsRepo.tx.message(tenant.id, conv.id, botMsg, 2),
      events.messageCreated(conv, botMsg),
      statsRepo.tx.addDay(tenant.id, utcDay(now), conv.id, { escalations: 1 }),
      counter.item,
    ];
    try {
      await commit(items, t);
    } catch (e) {
      throw asRateLimited(e, items, [counter]);
    }
    count(METRIC.escalations);
    return { success: true, ticketId: t.ticket.id, ticketNumber: t.ticket.number, message: text, ...status };
  }, { attempts: ATTEMPTS, conflict: 'the conversation changed concurrently; try again' });
}
