import { Conflict, NotFound } from '#shared/core/errors.ts';
import { METRIC } from '#shared/core/metric-names.ts';
import { count } from '#shared/core/metrics.ts';
import { HANDOVER_INTENT, KNOWLEDGE_INTENT, type TicketStatus } from '#shared/core/vocabulary.ts';
import { articlesRepo } from '#shared/data/articles.ts';
import { customersRepo } from '#shared/data/customers.ts';
import {
  conversationsRepo,
  preview,
  type Conversation,
  type Message,
  type Metadata,
} from '#shared/data/conversations.ts';
import { intentsRepo } from '#shared/data/intents.ts';
import { statsRepo, utcDay } from '#shared/data/stats.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { ticketsRepo } from '#shared/data/tickets.ts';
import { resolutionsRepo } from '#shared/data/resolutions.ts';
import { retrying, TxConditionFailed, type TxItem } from '#shared/data/tx.ts';
import { decide, type Decision } from './assistant.ts';
import { unansweredVector } from '#shared/domain/vectors.ts';
import { followUpMarks, saysWrong, unansweredWrite } from '#shared/domain/unanswered-marks.ts';
import { chatConversation, customerMessage, events } from '#shared/domain/events.ts';
import { availability } from '#shared/domain/tenants/tenant-config.ts';
import { nextVisitor, visitorOf, type VisitorInput } from '#shared/domain/customers/visitors.ts';
import { isActive } from '#shared/domain/handoff/tickets-rules.ts';
import { commit, openTicket, reopenTicket } from '#shared/domain/handoff/ticket-opening.ts';
import { assertOrigin, freshTenant } from '#shared/domain/tenants/widget-auth.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { asRateLimited, minuteCounter, perMinute, refuseSeenFull } from '#shared/domain/windows.ts';
import { lookUp, type ActionTurn } from '#shared/domain/events-out/actions.ts';
import { clock, newId } from '#shared/core/clock.ts';

/** The widget shows a linked email thread (its customer verified both ways) but does not write to it. */
const EMAIL_READ_ONLY = 'this conversation is by email: answer the last email to continue it';

const ATTEMPTS = 6;
const HANDED_OVER = "I've passed this conversation to our support team.";

/**
 * What the customer reads on escalation: the ticket's number, and whether the team is away. When it
 * is back is the client's to say, in the visitor's own clock (`nextOpenAt`): the server does not know
 * the visitor's time zone, and the tenant's would contradict the widget's header. `lead` says the
 * conversation is handed over; '' when the escalating intent's own reply says it (one sentence says
 * it, not two).
 */
export function escalationText(
  number: number | null,
  away: { online: boolean },
  email: string | null,
  lead = HANDED_OVER,
) {
  const ref = `${lead ? `${lead} ` : ''}${number === null ? 'Your request is with the team' : `Your ticket number is #${number}`}`;
  if (away.online) return `${ref}; a person will get back to you here.`;
  const reach = email ? `we'll answer here and at ${email}` : "leave your email address and we'll answer there too";
  return `${ref}. The team is away right now; ${reach}.`;
}

/**
 * Reads the tenant (fresh: its config and intents version, and so its allowed origins) and, if
 * given, the conversation, in one round trip.
 */
async function readState(tenantId: string, origin: string | undefined, conversationId: string | undefined) {
  if (!conversationId) return { tenant: await freshTenant(tenantId, origin), conversation: null };
  const r = await tenantsRepo.withConversation(tenantId, conversationId);
  if (!r.tenant) return { tenant: await freshTenant(tenantId, origin), conversation: null };
  assertOrigin(r.tenant, origin);
  if (!r.conversation) throw new NotFound('conversation');
  return { tenant: r.tenant, conversation: r.conversation };
}

/** A conversation's messages in one minute. */
const messageCounter = (tenantId: string, conversationId: string, now: Date) =>
  minuteCounter(
    conversationsRepo.tx.rateWindow(tenantId, conversationId, now, LIMITS.messagesPerMinute),
    `${tenantId}#messages#${conversationId}`,
    LIMITS.messagesPerMinute,
    now,
    `at most ${LIMITS.messagesPerMinute} messages a minute per conversation`,
  );

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

type MessageInput = { conversationId?: string; message: string; visitor?: VisitorInput; handover?: boolean };

/**
 * What the read step hands on: the tenant, the conversation as read (null: a new one) and the
 * visitor fields to set. `handover`: the message is why the customer asks for a person; nothing
 * answers it but the handover.
 */
export interface ReadTurn {
  tenant: Tenant;
  read: Conversation | null;
  set: Partial<Conversation>;
  silent: boolean;
  handover?: boolean;
}

/** A turn under way: the conversation (as read, or the new one) and the one time its writes carry. */
export interface Turn extends ReadTurn {
  conv: Conversation;
  now: Date;
  at: string;
}

/** The ticket side of a turn: the writes, the conversation fields they change, and the ticket the reply names. */
export interface Escalation {
  items: TxItem[];
  set: Partial<Conversation>;
  ticket: { id: string; number: number | null; isNew: boolean } | null;
  opened: { release(): Promise<void> } | null;
}

/**
 * Read: the tenant and the conversation, refused when closed or full. From the hand-over until the
 * ticket is done (its latest ticket is open, in progress or waiting) the turn is silent: answers
 * from the assistant would contradict or pre-empt the person who is coming.
 */
async function readTurn(tenantId: string, input: MessageInput, origin: string | undefined): Promise<ReadTurn> {
  const { tenant, conversation: read } = await readState(tenantId, origin, input.conversationId);
  const visitor = visitorOf(tenant, input.visitor);
  if (read?.status === 'closed') throw new Conflict('this conversation is closed', 'CONVERSATION_CLOSED');
  if (read?.channel === 'email') throw new Conflict(EMAIL_READ_ONLY);
  if (read && read.userMessageCount >= LIMITS.userMessagesPerConversation) {
    throw new Conflict(`a conversation takes at most ${LIMITS.userMessagesPerConversation} user messages`);
  }
  const newVisitor = nextVisitor(read?.visitor, visitor);
  const silent = read?.latestTicketStatus !== undefined && isActive(read.latestTicketStatus);
  return {
    tenant,
    read,
    set: newVisitor ? { visitor: newVisitor } : {},
    silent,
    handover: !silent && input.handover === true,
  };
}

/** The conversation the turn writes to: the one read, or a new one started at `now`. */
export function startTurn(r: ReadTurn, now: Date): Turn {
  const at = now.toISOString();
  const conv: Conversation = r.read ?? {
    id: newId(),
    tenantId: r.tenant.id,
    status: 'active',
    createdAt: at,
    updatedAt: at,
    messageCount: 0,
    userMessageCount: 0,
    lastMessagePreview: '',
    lastIntent: null,
    unclosedTickets: 0,
  };
  return { ...r, conv, now, at };
}

/**
 * Escalate: a message on a conversation whose latest ticket waits or is resolved reopens it; an
 * escalating intent names the active ticket, or opens one with the tenant's next number.
 */
async function escalateTurn(turn: Turn, decision: Decided, message: string): Promise<Escalation> {
  const { tenant, read, conv } = turn;
  // A waiting ticket goes back to open even while the assistant is silent: the customer answered.
  const reopen = read ? await reopenTicket(tenant, conv, turn.at) : null;
  if (reopen?.stale) throw new TxConditionFailed([]);
  const items = reopen ? reopen.items : [];
  const set = reopen ? { ...turn.set, ...reopen.set } : turn.set;
  if (turn.silent || !(turn.handover || escalates(decision))) return { items, set, ticket: null, opened: null };
  if (conv.latestTicketId && (reopen || (conv.latestTicketStatus && isActive(conv.latestTicketStatus)))) {
    return {
      items,
      set,
      ticket: { id: conv.latestTicketId, number: await numberOf(tenant.id, conv), isNew: false },
      opened: null,
    };
  }
  const t = await openTicket(
    tenant,
    { ...conv, ...set },
    `Requested in chat: ${preview(message)}${askedFor(decision)}`,
    turn.at,
  );
  return {
    items: [...items, ...t.items],
    set: { ...set, ...t.set },
    ticket: { id: t.ticket.id, number: t.ticket.number, isNew: true },
    opened: t,
  };
}

/** What an escalating intent asked the customer for (an order number), for the team on the ticket: " (order_id: 4411)". */
function askedFor({ nlu }: Pick<Decision, 'nlu'>) {
  const asked = (nlu.intent?.entities ?? []).filter((e) => e.required && nlu.entities[e.name] !== undefined);
  return asked.length ? ` (${asked.map((e) => `${e.name}: ${nlu.entities[e.name]}`).join(', ')})` : '';
}

/**
 * An escalating intent answered, and has every entity it needs (else its reply asks for one first);
 * or a calling intent's action answered `handoff: true`.
 */
const escalates = (d: Pick<Decided, 'nlu' | 'action'>) =>
  (d.nlu.intent?.action === 'escalate' || d.action?.handoff === true) && !d.nlu.pending;

/** The decision, with the calling intent's action when it asked one (its reply is then the action's). */
type Decided = Decision & { action?: ActionTurn };

/**
 * The calling intent's action, asked once per request: a turn that is read again and redone after
 * a concurrent change reuses the answer. Null when no action is due: the answer is not a calling
 * intent's, it still asks for an entity, or nobody is answered.
 */
function actionAsker(startedAt: number) {
  let asked: { key: string; turn: Promise<ActionTurn> } | null = null;
  return (turn: Turn, decision: Decision, message: string): Promise<ActionTurn> | null => {
    const { intent, entities, pending } = decision.nlu;
    if (turn.silent || turn.handover || decision.knowledge || pending || intent?.action !== 'call') return null;
    const key = JSON.stringify([intent.name, entities]);
    if (asked?.key !== key) {
      const v = turn.set.visitor ?? turn.conv.visitor;
      const customer = v ? { userId: v.userId, email: v.email, verified: v.verified } : null;
      asked = {
        key,
        turn: lookUp(
          turn.tenant.id,
          intent,
          { intent: intent.name, entities, message, conversationId: turn.conv.id, customer },
          startedAt,
        ),
      };
    }
    return asked.turn;
  };
}

/**
 * Decide (the words): the reply and its metadata from the assistant's decision; an escalation adds
 * what the customer reads about the ticket, unless the intent's reply names its number already.
 * A handover's reply is that note alone.
 */
export function answerOf(
  decision: Pick<Decided, 'nlu' | 'knowledge' | 'action'>,
  ticket: Escalation['ticket'],
  escalationNote: string | null,
  handover = false,
) {
  const { nlu, knowledge: kb } = decision;
  const ticketFields = ticket
    ? { ticketId: ticket.id, ...(ticket.number === null ? {} : { ticketNumber: ticket.number }) }
    : {};
  if (handover) {
    return {
      reply: escalationNote ?? '',
      metadata: {
        intentDetected: HANDOVER_INTENT,
        confidence: 1,
        entitiesExtracted: {},
        intentRanking: nlu.ranking,
        ...ticketFields,
      } as Metadata,
    };
  }
  let reply = kb ? kb.reply : nlu.reply;
  if (ticket && escalationNote !== null && (ticket.number === null || !reply.includes(`#${ticket.number}`)))
    reply = `${reply} ${escalationNote}`.trim();
  const metadata: Metadata = kb
    ? {
        intentDetected: KNOWLEDGE_INTENT,
        confidence: kb.confidence,
        entitiesExtracted: {},
        intentRanking: nlu.ranking,
        sources: kb.sources,
        ...(kb.format ? { format: kb.format } : {}),
      }
    : {
        intentDetected: nlu.intent?.name ?? 'fallback',
        confidence: nlu.confidence,
        entitiesExtracted: nlu.entities,
        intentRanking: nlu.ranking,
        ...(nlu.intent ? {} : { sources: [] }),
        ...ticketFields,
        ...(decision.action ? { action: decision.action.metadata } : {}),
      };
  return { reply, metadata };
}

/**
 * Write (what): every item of the turn's one transaction, and the counters whose refusal maps a
 * failed condition to a 429. The conversation, its messages, the statistics and the hits.
 */
export function turnWrites(
  turn: Turn,
  decision: Pick<Decision, 'nlu' | 'knowledge'>,
  esc: Escalation,
  answer: ReturnType<typeof answerOf>,
  message: string,
  sourceIp: string,
  vector?: TxItem[],
) {
  const { tenant, read, conv, now: nowDate, at: now } = turn;
  const { nlu, knowledge: kb } = decision;
  const { metadata } = answer;
  const newTicket = esc.ticket?.isNew === true;
  const userMsg: Message = { id: newId(), role: 'user', content: message, createdAt: now };
  const botMsg: Message | null = turn.silent
    ? null
    : { id: newId(), role: 'assistant', content: answer.reply, createdAt: now, metadata };
  const stored = botMsg ? 2 : 1;
  const convFields: Partial<Conversation> = {
    ...esc.set,
    updatedAt: now,
    lastMessagePreview: preview(message),
    lastIntent: metadata.intentDetected,
    lastCustomerMessageAt: now,
  };
  // The intent waiting for an entity its reply asks for; a handover drops the question.
  if (!turn.silent && (nlu.pending || read?.pending)) convFields.pending = turn.handover ? null : nlu.pending;
  const after: Conversation = { ...conv, ...convFields };
  // An answer that was not a fallback (nor the hand-over's note), for "resolved by the assistant".
  const answered = botMsg !== null && !turn.handover && (nlu.intent !== null || kb !== null) ? 1 : 0;
  const convItem = read
    ? conversationsRepo.tx.update(
        read,
        convFields,
        { messageCount: stored, userMessageCount: 1, unclosedTickets: newTicket ? 1 : 0, assistantAnswers: answered },
        { maxUserMessages: LIMITS.userMessagesPerConversation },
      )
    : conversationsRepo.tx.put({
        ...after,
        messageCount: stored,
        userMessageCount: 1,
        unclosedTickets: newTicket ? 1 : 0,
        ...(answered ? { assistantAnswers: 1 } : {}),
      });
  // The conversation's message window first: its refusal is the one a full window answers first.
  // A new conversation also counts against its key's per-address and overall windows.
  const counters = [messageCounter(tenant.id, conv.id, nowDate)];
  if (!read) counters.push(...newConversationCounters(tenant, sourceIp, nowDate));
  if (newTicket) counters.push(escalationCounter(tenant.id, sourceIp, nowDate));
  const items: TxItem[] = [convItem, ...esc.items, ...counters.map((c) => c.item)];
  if (!read) items.push(events.conversationCreated(after, now));
  // Without a ticket the conversation may end resolved by the assistant: judged 30 minutes after this message.
  if (!esc.ticket && !conv.latestTicketId) items.push(resolutionsRepo.tx.due(tenant.id, conv.id, now));
  // The customer's email finds the conversation for an export or an erasure.
  if (convFields.visitor?.email) items.push(customersRepo.tx.link(tenant.id, convFields.visitor.email, conv.id));
  items.push(conversationsRepo.tx.message(tenant.id, conv.id, userMsg, 0), events.messageCreated(conv, userMsg));
  if (botMsg)
    items.push(conversationsRepo.tx.message(tenant.id, conv.id, botMsg, 1), events.messageCreated(conv, botMsg));
  if (botMsg) items.push(...unansweredWrite(tenant.id, conv, userMsg, metadata, vector));
  items.push(
    statsRepo.tx.addDay(
      tenant.id,
      utcDay(now),
      conv.id,
      {
        messages: 1,
        conversations: read ? 0 : 1,
        escalations: newTicket ? 1 : 0,
        fallbacks: nlu.intent || kb || turn.handover ? 0 : 1,
        confidenceSum: metadata.confidence,
        ...(nlu.intent && !turn.handover ? { [`i_${nlu.intent.name}`]: 1 } : {}),
        ...(kb ? { knowledgeAnswers: 1, [`a_${kb.articleId}`]: 1 } : {}),
      },
      kb ? { [`t_${kb.articleId}`]: kb.title } : {},
    ),
  );
  if (nlu.intent && !turn.handover) items.push(intentsRepo.tx.hit(tenant.id, nlu.intent.id, conv.id));
  if (kb) items.push(articlesRepo.tx.hit(tenant.id, kb.articleId, conv.id));
  return { items, counters, botMsg };
}

/** Write (commit): the one transaction; a full window answers 429, a lease taken for it goes back. */
async function commitTurn(w: ReturnType<typeof turnWrites>, opened: Escalation['opened']) {
  try {
    await commit(w.items, opened);
  } catch (e) {
    throw asRateLimited(e, w.items, w.counters);
  }
}

/**
 * A customer's message and the assistant's answer: read, decide, escalate, write. While the
 * conversation is with the team (its latest ticket is open, in progress or waiting) the assistant
 * stays silent: the message is stored and classified for the statistics, and nothing answers it
 * but the person.
 */
export function sendMessage(tenantId: string, input: MessageInput, origin: string | undefined, sourceIp: string) {
  const ask = actionAsker(clock.now());
  // The conversation or its ticket changed since we read it: read again and redo.
  return retrying(
    async () => {
      const read = await readTurn(tenantId, input, origin);
      // A window this container saw full refuses before the message is decided.
      const now = clock.date();
      refuseSeenFull(
        read.read ? [messageCounter(tenantId, read.read.id, now)] : newConversationCounters(read.tenant, sourceIp, now),
        now,
      );
      // Silent or handed over: nobody answers, so no article is searched (nor counted as having answered).
      const decided = await decide(
        read.tenant,
        input.message,
        !read.silent && !read.handover,
        read.silent ? null : (read.read?.pending ?? null),
      );
      const turn = startTurn(read, clock.date());
      const action = await ask(turn, decided, input.message);
      const decision: Decided = action ? { ...decided, nlu: { ...decided.nlu, reply: action.reply }, action } : decided;
      const esc = await escalateTurn(turn, decision, input.message);
      // An escalating intent's own reply says the conversation is handed over: the note adds the ticket alone.
      // An action's answer does not say it, so its handoff keeps the note's lead.
      const lead = !read.handover && !action && decision.nlu.reply.trim() ? '' : undefined;
      const note = esc.ticket
        ? escalationText(
            esc.ticket.number,
            availability(turn.tenant.config ?? {}, turn.now),
            (esc.set.visitor ?? turn.conv.visitor)?.email ?? null,
            lead,
          )
        : null;
      const answer = answerOf(decision, esc.ticket, note, read.handover);
      // The vector read goes with the message's unanswered item, if it gets one: no indexing pass for it.
      const vector = decided.vector ? await unansweredVector(turn.tenant, input.message, decided.vector) : undefined;
      const written = turnWrites(turn, decision, esc, answer, input.message, sourceIp, vector);
      if (action) written.items.push(...action.items);
      // The answer before, if confident, failed the customer: they asked for a person or said it was wrong.
      const followUp = read.silent
        ? null
        : esc.ticket?.isNew
          ? 'handed_over'
          : saysWrong(input.message)
            ? 'said_wrong'
            : null;
      if (followUp && read.read) written.items.push(...(await followUpMarks(tenantId, read.read.id, followUp)));
      await commitTurn(written, esc.opened);
      await action?.report();

      if (esc.ticket?.isNew) count(METRIC.escalations);
      const { metadata } = answer;
      if (!written.botMsg)
        return { conversationId: turn.conv.id, message: null, metadata, handledBy: 'agent' as const };
      if (!read.handover)
        count(
          decision.knowledge ? METRIC.answerArticle : decision.nlu.intent ? METRIC.answerIntent : METRIC.answerFallback,
        );
      const m = written.botMsg;
      return {
        conversationId: turn.conv.id,
        message: { id: m.id, role: m.role, content: m.content, createdAt: m.createdAt },
        metadata,
      };
    },
    { attempts: ATTEMPTS, conflict: 'the conversation changed concurrently; try again' },
  );
}

/** The number of the conversation's latest ticket (read from the ticket where the conversation predates numbering). */
async function numberOf(tenantId: string, conv: Conversation): Promise<number | null> {
  if (conv.latestTicketNumber !== undefined) return conv.latestTicketNumber;
  return conv.latestTicketId ? ((await ticketsRepo.get(tenantId, conv.latestTicketId))?.number ?? null) : null;
}

/**
 * The conversation's latest ticket as the customer sees it: its number and status, from the
 * conversation item (one read of the ticket only where the conversation predates numbering).
 */
async function latestTicket(
  tenantId: string,
  conv: Conversation,
): Promise<{ number: number | null; status: TicketStatus } | null> {
  if (!conv.latestTicketId) return null;
  if (conv.latestTicketNumber !== undefined && conv.latestTicketStatus)
    return { number: conv.latestTicketNumber, status: conv.latestTicketStatus };
  const t = await ticketsRepo.get(tenantId, conv.latestTicketId);
  return t ? { number: t.number, status: t.status } : null;
}

export async function getConversation(tenantId: string, conversationId: string, origin?: string) {
  const [, found] = await Promise.all([
    freshTenant(tenantId, origin),
    conversationsRepo.load(tenantId, conversationId),
  ]);
  if (!found) throw new NotFound('conversation');
  return {
    conversation: { ...chatConversation(found.conversation), channel: found.conversation.channel ?? 'widget' },
    ticket: await latestTicket(tenantId, found.conversation),
    // An email that failed SPF, DKIM or DMARC may be anyone's: the team sees it, the customer's widget never.
    messages: found.messages.filter((m) => m.email?.verified !== false).map(customerMessage),
  };
}

export function escalate(
  tenantId: string,
  input: { conversationId: string; reason: string },
  origin: string | undefined,
  sourceIp: string,
) {
  // Another escalation won the race: the next read finds its ticket and returns it.
  return retrying(
    async () => {
      const { tenant, conversation } = await readState(tenantId, origin, input.conversationId);
      const conv = conversation!;
      if (conv.status === 'closed') throw new Conflict('this conversation is closed', 'CONVERSATION_CLOSED');
      if (conv.channel === 'email') throw new Conflict(EMAIL_READ_ONLY);
      const nowDate = clock.date();
      const away = availability(tenant.config ?? {}, nowDate);
      const email = conv.visitor?.email ?? null;
      const status = { online: away.online, nextOpenAt: away.nextOpenAt, emailRequested: !away.online && !email };
      if (conv.latestTicketId && conv.latestTicketStatus && isActive(conv.latestTicketStatus)) {
        const n = await numberOf(tenant.id, conv);
        return {
          success: true,
          ticketId: conv.latestTicketId,
          ticketNumber: n,
          message: escalationText(n, away, email),
          ...status,
        };
      }
      const t = await openTicket(tenant, conv, input.reason, nowDate.toISOString());
      const now = t.ticket.createdAt;
      const text = escalationText(t.ticket.number, away, email);
      const botMsg: Message = { id: newId(), role: 'assistant', content: text, createdAt: now };
      // Only an escalation that opens a ticket counts: asking again for the same ticket writes nothing.
      const counter = escalationCounter(tenant.id, sourceIp, new Date(now));
      const items = [
        // A question the assistant asked is dropped: a person answers now.
        conversationsRepo.tx.update(
          conv,
          { ...t.set, updatedAt: now, ...(conv.pending ? { pending: null } : {}) },
          { messageCount: 1, unclosedTickets: 1 },
        ),
        ...t.items,
        conversationsRepo.tx.message(tenant.id, conv.id, botMsg, 2),
        events.messageCreated(conv, botMsg),
        statsRepo.tx.addDay(tenant.id, utcDay(now), conv.id, { escalations: 1 }),
        counter.item,
        // A confident answer right before the hand-over failed the customer: it goes on the unanswered list.
        ...(await followUpMarks(tenant.id, conv.id, 'handed_over')),
      ];
      try {
        await commit(items, t);
      } catch (e) {
        throw asRateLimited(e, items, [counter]);
      }
      count(METRIC.escalations);
      return { success: true, ticketId: t.ticket.id, ticketNumber: t.ticket.number, message: text, ...status };
    },
    { attempts: ATTEMPTS, conflict: 'the conversation changed concurrently; try again' },
  );
}
