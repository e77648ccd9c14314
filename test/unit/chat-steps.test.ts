import { beforeAll, describe, expect, it } from 'vitest';
import { KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import type { Conversation } from '#shared/data/conversations.ts';
import type { Intent } from '#shared/data/intents.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { answerOf, escalationText, startTurn, turnWrites, type Escalation } from '#shared/domain/assistant/chat.ts';

// The pure steps of sendMessage (shared/domain/assistant/chat.ts): the words of the answer, the
// turn's conversation, and the items of its one transaction. The reads and the commit are covered
// through HTTP by test/integration/chat.test.ts and handoff.test.ts.

beforeAll(() => {
  process.env.TABLE_NAME ??= 'unit';
});

const tenant = {
  id: 't1',
  name: 'Acme',
  config: {},
  intentsVersion: 1,
  intentCount: 1,
  createdAt: '',
  updatedAt: '',
} as Tenant;
const intent = (action: Intent['action']): Intent => ({
  id: 'int_1',
  name: action === 'escalate' ? 'human' : 'hours',
  description: '',
  trainingPhrases: [],
  response: '',
  entities: [],
  action,
  enabled: true,
  createdAt: '',
  updatedAt: '',
});
const understood = (i: Intent | null, reply: string) => ({
  nlu: { intent: i, confidence: i ? 0.9 : 0.2, ranking: [], entities: {}, reply, pending: null },
  knowledge: null,
});
const article = {
  nlu: { intent: null, confidence: 0.1, ranking: [], entities: {}, reply: 'Sorry.', pending: null },
  knowledge: {
    confidence: 0.8,
    articleId: 'art_1',
    title: 'Returns',
    reply: 'Send it back within 30 days.',
    sources: [],
  },
};
const noTicket: Escalation = { items: [], set: {}, ticket: null, opened: null };
const newTicket: Escalation = { items: [], set: {}, ticket: { id: 'tkt_1', number: 7, isNew: true }, opened: null };

const conversation = (over: Partial<Conversation> = {}): Conversation => ({
  id: 'c1',
  tenantId: 't1',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  messageCount: 2,
  userMessageCount: 1,
  lastMessagePreview: 'hi',
  lastIntent: null,
  unclosedTickets: 0,
  ...over,
});
const sortKeys = (items: TxItem[]) => items.map((i) => String((i.Put?.Item ?? i.Update?.Key)?.sk ?? ''));
const unansweredItems = (items: TxItem[]) =>
  items.filter((i) => String((i.Put?.Item ?? i.Update?.Key)?.pk ?? '').endsWith('#UNANSWERED'));
const eventTypes = (items: TxItem[]) =>
  items.map((i) => (i.Put?.Item?.event as { type?: string } | undefined)?.type).filter((t): t is string => Boolean(t));

describe('escalationText', () => {
  it('names the ticket and, while the team is away, when it is back and where the answer goes', () => {
    expect(escalationText(7, { online: true }, null)).toContain('Your ticket number is #7; a person');
    const away = escalationText(7, { online: false }, 'ada@example.com');
    expect(away).toContain("The team is away right now; we'll answer here and at ada@example.com.");
    expect(escalationText(null, { online: false }, null)).toMatch(/Your request is with the team\..*leave your email/);
    // Said once: an escalating intent's own reply takes the place of the handover sentence.
    expect(escalationText(7, { online: true }, null, '')).toBe(
      'Your ticket number is #7; a person will get back to you here.',
    );
  });
});

describe('answerOf', () => {
  it('answers from an article with the knowledge intent and its sources, and no ticket', () => {
    const a = answerOf(article, null, null);
    expect(a.reply).toBe('Send it back within 30 days.');
    expect(a.metadata).toMatchObject({ intentDetected: KNOWLEDGE_INTENT, confidence: 0.8, sources: [] });
    expect(a.metadata).not.toHaveProperty('ticketId');
  });

  it('adds the escalation note and the ticket to an escalating intent', () => {
    const a = answerOf(
      understood(intent('escalate'), 'Let me get someone.'),
      newTicket.ticket,
      'Your ticket number is #7.',
    );
    expect(a.reply).toBe('Let me get someone. Your ticket number is #7.');
    expect(a.metadata).toMatchObject({ intentDetected: 'human', ticketId: 'tkt_1', ticketNumber: 7 });
  });

  it('leaves a reply that names the ticket number already as it is', () => {
    expect(answerOf(understood(intent('escalate'), 'Ticket #7 is open.'), newTicket.ticket, 'note').reply).toBe(
      'Ticket #7 is open.',
    );
  });

  it('answers a handover with the note alone, whatever the message would have got', () => {
    const a = answerOf(
      understood(intent('reply'), 'We open at nine.'),
      newTicket.ticket,
      "I've passed this on. Your ticket number is #7.",
      true,
    );
    expect(a.reply).toBe("I've passed this on. Your ticket number is #7.");
    expect(a.metadata).toMatchObject({ intentDetected: 'handover', confidence: 1, ticketId: 'tkt_1', ticketNumber: 7 });
  });

  it('falls back with no sources when no intent is understood', () => {
    const a = answerOf(understood(null, 'Sorry, I did not get that.'), null, null);
    expect(a.metadata).toMatchObject({ intentDetected: 'fallback', sources: [] });
  });
});

describe('startTurn and turnWrites', () => {
  const now = new Date('2026-03-02T10:00:30.000Z');

  it('a new conversation: created, counted against its windows, both messages and their events', () => {
    const turn = startTurn({ tenant, read: null, set: {}, silent: false }, now);
    expect(turn.conv).toMatchObject({
      tenantId: 't1',
      status: 'active',
      createdAt: now.toISOString(),
      messageCount: 0,
    });
    const d = understood(intent('reply'), 'We open at nine.');
    const w = turnWrites(turn, d, noTicket, answerOf(d, null, null), 'when do you open?', '1.2.3.4');
    expect(sortKeys(w.items)[0]).toBe('CONV');
    // The conversation's message window first (its 429 is the one answered), then the new conversation's two.
    expect(w.counters).toHaveLength(3);
    expect(sortKeys(w.counters.map((c) => c.item))[0]).toMatch(/^RATE#/);
    for (const c of w.counters) expect(w.items).toContain(c.item);
    expect(eventTypes(w.items)).toEqual(['conversation.created', 'message.created', 'message.created']);
    expect(w.botMsg).toMatchObject({ role: 'assistant', content: 'We open at nine.' });
  });

  it("an escalation that opens a ticket also counts against the address's escalation window", () => {
    const turn = startTurn({ tenant, read: conversation(), set: {}, silent: false }, now);
    const d = understood(intent('escalate'), 'Let me get someone.');
    const w = turnWrites(turn, d, newTicket, answerOf(d, newTicket.ticket, 'note'), 'a person please', '1.2.3.4');
    expect(w.counters).toHaveLength(2);
    expect(w.counters[1]!.refusal().message).toBe('at most 30 escalations from one address a minute');
    expect(eventTypes(w.items)).not.toContain('conversation.created');
  });

  it('a fallback goes on the unanswered list with the vector the chat read; without one, the indexer is asked to embed it', () => {
    const turn = startTurn({ tenant, read: conversation(), set: {}, silent: false }, now);
    const d = understood(null, 'Sorry, I did not get that.');
    const vector: TxItem = { Put: { Item: { pk: 'TENANT#t1#VEC', sk: 'hash', type: 'vector' } } };
    const read = turnWrites(turn, d, noTicket, answerOf(d, null, null), 'do you sell unicycles', '1.2.3.4', [vector]);
    expect(unansweredItems(read.items)).toHaveLength(1);
    expect(read.items).toContain(vector);
    expect(eventTypes(read.items)).not.toContain('content.changed');
    // Its vector stored already (a content text's): nothing more to write, and no pass.
    const known = turnWrites(turn, d, noTicket, answerOf(d, null, null), 'do you sell unicycles', '1.2.3.4', []);
    expect(unansweredItems(known.items)).toHaveLength(1);
    expect(eventTypes(known.items)).not.toContain('content.changed');
    const unread = turnWrites(turn, d, noTicket, answerOf(d, null, null), 'do you sell unicycles', '1.2.3.4');
    expect(eventTypes(unread.items)).toContain('content.changed');
    expect(unread.items.filter((i) => i.Put?.Item?.type === 'vector')).toEqual([]);
  });

  it("a silent turn stores the customer's message only", () => {
    const turn = startTurn(
      { tenant, read: conversation({ latestTicketStatus: 'in_progress' }), set: {}, silent: true },
      now,
    );
    expect(turn.conv.id).toBe('c1');
    const d = understood(null, 'Sorry.');
    const w = turnWrites(turn, d, noTicket, answerOf(d, null, null), 'are you there?', '1.2.3.4');
    expect(w.botMsg).toBeNull();
    expect(eventTypes(w.items)).toEqual(['message.created']);
    expect(sortKeys(w.items).filter((k) => k.startsWith('MSG#'))).toHaveLength(1);
  });
});
