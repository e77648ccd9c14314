import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOWED, type Status } from '../fixtures/ticket-transitions.ts';
import { admin, chat, memberToken, newTenant, request, send, type Res, type TestTenant } from './client.ts';

// Random sequences of everything that touches a ticket and its conversation, each run on a new
// tenant through the HTTP API, checked step by step against a model written from the contract
// (docs/API.md, test/fixtures/ticket-transitions.ts): no 5xx, the state machine, the audit trail in
// order, firstResponseAt set once by the first agent reply, resolvedAt set on resolve, kept through
// close, null after a reopen. fast-check prints the seed and the shrunk sequence on failure.

type Priority = 'low' | 'medium' | 'high' | 'urgent';
type Who = 'owner' | 'agent';
type Cmd =
  | { kind: 'customer'; text: 'plain' | 'human' }
  | { kind: 'reply'; by: Who }
  | { kind: 'escalate' }
  | {
      kind: 'patch';
      by: Who;
      ticket: number;
      status?: Status;
      priority?: Priority;
      assignee?: Who | 'nobody' | 'stranger';
    }
  | { kind: 'rate'; score: number; comment?: string }
  | { kind: 'label'; labels: string[] };

const STATUSES = Object.keys(ALLOWED) as Status[];
const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent'];
const PLAIN = 'hello';
// A training phrase of the starter `escalate` intent: the customer asks for a person in chat.
const HUMAN = 'is there a human I can talk to';
const LABELS = ['vip', 'VIP', 'billing', 'Refund', 'refund'];

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('customer' as const),
      text: fc.constantFrom('plain' as const, 'plain' as const, 'human' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('reply' as const), by: fc.constantFrom<Who>('owner', 'agent') }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('escalate' as const) }) },
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          kind: fc.constant('patch' as const),
          by: fc.constantFrom<Who>('owner', 'agent'),
          ticket: fc.nat(2),
          status: fc.constantFrom(...STATUSES),
          priority: fc.constantFrom(...PRIORITIES),
          assignee: fc.constantFrom<Who | 'nobody' | 'stranger'>('owner', 'agent', 'nobody', 'stranger'),
        },
        { requiredKeys: ['kind', 'by', 'ticket'] },
      )
      .filter((p) => p.status !== undefined || p.priority !== undefined || p.assignee !== undefined),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant('rate' as const),
        score: fc.integer({ min: 1, max: 5 }),
        comment: fc.constantFrom('ok', 'slow'),
      },
      { requiredKeys: ['kind', 'score'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('label' as const),
      labels: fc.uniqueArray(fc.constantFrom(...LABELS), { maxLength: 3 }),
    }),
  },
);

interface Change {
  from: unknown;
  to: unknown;
}
interface TrailEntry {
  action: string;
  actor: { type: string; id: string };
  changes: Record<string, Change>;
}
interface TicketModel {
  id: string;
  number: number;
  status: Status;
  priority: Priority;
  assigneeId: string | null;
  firstResponseAt: string | null;
  resolvedAt: string | null;
  updatedAt: string;
  trail: TrailEntry[];
}

class Model {
  tickets: TicketModel[] = [];
  labels: string[] = [];
  /** The first spelling of each label in the tenant (case folded key). */
  spelling = new Map<string, string>();
  rating: { score: number; comment: string | null } | null = null;
  ratingsWritten = 0;
  messageCount: number;
  constructor(messageCount: number) {
    this.messageCount = messageCount;
  }
  get latest() {
    return this.tickets.at(-1) ?? null;
  }
  get closed() {
    return this.tickets.length > 0 && this.tickets.every((t) => t.status === 'closed');
  }
  get status() {
    return this.closed ? 'closed' : this.tickets.length ? 'escalated' : 'active';
  }
}

const isActive = (s: Status) => s === 'open' || s === 'in_progress' || s === 'waiting';
const WIDGET = { type: 'widget', id: 'widget' };

interface Run {
  t: TestTenant;
  agent: { token: string; sub: string };
  conversationId: string;
  model: Model;
}

function noServerError(r: Res, what: string) {
  if (r.status >= 500) throw new Error(`${what} answered ${r.status}: ${r.text}`);
}

function expectStatus(r: Res, status: number, what: string, code?: string) {
  noServerError(r, what);
  if (r.status !== status || (code && r.body?.code !== code)) {
    throw new Error(`${what}: expected ${status}${code ? ` ${code}` : ''}, got ${r.status} ${r.text}`);
  }
}

async function newRun(): Promise<Run> {
  const t = await newTenant('Sequence Shop');
  const agent = await memberToken(t, 'agent');
  const first = await send(t, PLAIN);
  expectStatus(first, 200, 'first message');
  expect(first.body.metadata.ticketId).toBeUndefined();
  return { t, agent, conversationId: first.body.conversationId, model: new Model(2) };
}

/** A ticket the model learnt of from a response: its number is the next one of the tenant, its times are read. */
async function opened(run: Run, id: string, actor: typeof WIDGET) {
  const r = await request('GET', admin(`/tickets/${id}`), { token: run.t.ownerToken });
  expectStatus(r, 200, 'GET new ticket');
  const number = run.model.tickets.length + 1;
  expect(r.body.ticket).toMatchObject({
    id,
    number,
    status: 'open',
    priority: 'medium',
    assigneeId: null,
    firstResponseAt: null,
    resolvedAt: null,
  });
  run.model.tickets.push({
    id,
    number,
    status: 'open',
    priority: 'medium',
    assigneeId: null,
    firstResponseAt: null,
    resolvedAt: null,
    updatedAt: r.body.ticket.updatedAt,
    trail: [
      {
        action: 'ticket.created',
        actor,
        changes: { status: { from: null, to: 'open' }, priority: { from: null, to: 'medium' } },
      },
    ],
  });
}

/** A customer message on a waiting or resolved latest ticket reopens it (the assistant stays silent on a waiting one). */
function reopen(m: Model, at: string) {
  const l = m.latest;
  if (!l || (l.status !== 'waiting' && l.status !== 'resolved')) return;
  l.trail.push({ action: 'ticket.reopened', actor: WIDGET, changes: { status: { from: l.status, to: 'open' } } });
  Object.assign(l, { status: 'open', resolvedAt: null, updatedAt: at });
}

async function apply(run: Run, c: Cmd): Promise<void> {
  const { t, model: m, conversationId } = run;
  const who = (w: Who) => (w === 'owner' ? { token: t.ownerToken, sub: t.ownerSub } : run.agent);
  switch (c.kind) {
    case 'customer': {
      const r = await send(t, c.text === 'human' ? HUMAN : PLAIN, conversationId);
      if (m.closed) return expectStatus(r, 409, 'message on a closed conversation', 'CONVERSATION_CLOSED');
      expectStatus(r, 200, 'customer message');
      // From the hand-over until the ticket is done, nothing but the team answers.
      const silent = m.latest !== null && isActive(m.latest.status);
      if (silent) {
        expect(r.body).toMatchObject({ message: null, handledBy: 'agent' });
        m.messageCount += 1;
        if (m.latest!.status === 'waiting') {
          // The silent answer names no time: the stored message's is the reopening's.
          const d = await request('GET', admin(`/conversations/${conversationId}`), { token: t.ownerToken });
          reopen(m, (d.body.messages as Array<{ createdAt: string }>).at(-1)!.createdAt);
        }
        return;
      }
      m.messageCount += 2;
      reopen(m, r.body.message.createdAt);
      if (c.text === 'plain') {
        expect(r.body.metadata.ticketId).toBeUndefined();
        return;
      }
      const l = m.latest;
      if (l && isActive(l.status)) expect(r.body.metadata.ticketId).toBe(l.id);
      else await opened(run, r.body.metadata.ticketId, WIDGET);
      return;
    }
    case 'reply': {
      const by = who(c.by);
      const r = await request('POST', admin(`/conversations/${conversationId}/messages`), {
        token: by.token,
        body: { content: 'Looking into it' },
      });
      if (m.closed) return expectStatus(r, 409, 'reply on a closed conversation', 'CONVERSATION_CLOSED');
      expectStatus(r, 201, 'agent reply');
      m.messageCount += 1;
      const l = m.latest;
      // Only the first agent reply of the latest ticket answers it.
      if (!l || l.firstResponseAt !== null || l.status === 'closed') return;
      const at = r.body.message.createdAt as string;
      const changes: Record<string, Change> = { firstResponseAt: { from: null, to: at } };
      if (l.status === 'open') changes.status = { from: 'open', to: 'in_progress' };
      l.trail.push({ action: 'ticket.updated', actor: { type: 'user', id: by.sub }, changes });
      Object.assign(l, { firstResponseAt: at, updatedAt: at, status: l.status === 'open' ? 'in_progress' : l.status });
      return;
    }
    case 'escalate': {
      const r = await request('POST', chat('/escalate'), {
        widgetKey: t.widgetKey,
        body: { conversationId, reason: 'needs a person' },
      });
      if (m.closed) return expectStatus(r, 409, 'escalation of a closed conversation', 'CONVERSATION_CLOSED');
      expectStatus(r, 200, 'escalate');
      const l = m.latest;
      if (l && isActive(l.status)) {
        expect(r.body).toMatchObject({ ticketId: l.id, ticketNumber: l.number });
        return;
      }
      expect(r.body.ticketNumber).toBe(m.tickets.length + 1);
      m.messageCount += 1;
      await opened(run, r.body.ticketId, WIDGET);
      return;
    }
    case 'patch': {
      const k = m.tickets[c.ticket % Math.max(1, m.tickets.length)];
      if (!k) return;
      const ids = { owner: t.ownerSub, agent: run.agent.sub, nobody: null, stranger: 'not-a-member' };
      const body = {
        ...(c.status ? { status: c.status } : {}),
        ...(c.priority ? { priority: c.priority } : {}),
        ...(c.assignee ? { assigneeId: ids[c.assignee] } : {}),
      };
      const by = who(c.by);
      const r = await request('PATCH', admin(`/tickets/${k.id}`), { token: by.token, body });
      const changes: Record<string, Change> = {};
      if (c.status && c.status !== k.status) changes.status = { from: k.status, to: c.status };
      if (c.priority && c.priority !== k.priority) changes.priority = { from: k.priority, to: c.priority };
      if (c.assignee && ids[c.assignee] !== k.assigneeId)
        changes.assigneeId = { from: k.assigneeId, to: ids[c.assignee] };
      const forbidden =
        (changes.status && !ALLOWED[k.status].includes(c.status!)) ||
        (k.status === 'closed' && (changes.priority || changes.assigneeId));
      if (forbidden)
        return expectStatus(r, 409, `PATCH ${JSON.stringify(body)} on a ${k.status} ticket`, 'INVALID_TRANSITION');
      if (c.assignee === 'stranger') return expectStatus(r, 400, 'assigning a stranger', 'VALIDATION_ERROR');
      expectStatus(r, 200, `PATCH ${JSON.stringify(body)} on a ${k.status} ticket`);
      if (Object.keys(changes).length === 0) {
        expect(r.body.ticket.updatedAt).toBe(k.updatedAt);
        return;
      }
      const at = r.body.ticket.updatedAt as string;
      expect(at > k.updatedAt).toBe(true);
      const status = c.status ?? k.status;
      const resolvedAt =
        status === 'resolved' && k.status !== 'resolved'
          ? at
          : status === 'resolved' || status === 'closed'
            ? k.resolvedAt
            : null;
      k.trail.push({ action: 'ticket.updated', actor: { type: 'user', id: by.sub }, changes });
      Object.assign(k, {
        status,
        priority: c.priority ?? k.priority,
        assigneeId: c.assignee ? ids[c.assignee] : k.assigneeId,
        updatedAt: at,
        resolvedAt,
      });
      return;
    }
    case 'rate': {
      const r = await request('POST', chat(`/conversations/${conversationId}/rating`), {
        widgetKey: t.widgetKey,
        body: { score: c.score, ...(c.comment ? { comment: c.comment } : {}) },
      });
      if (m.tickets.length === 0) return expectStatus(r, 409, 'rating without a ticket', 'CONFLICT');
      const same = m.rating?.score === c.score && m.rating.comment === (c.comment ?? null);
      // At most 5 ratings a minute per conversation; a minute may turn over during the sequence.
      if (!same && m.ratingsWritten >= 5 && r.status === 429) return;
      expectStatus(r, 200, 'rating');
      expect(r.body.rating).toMatchObject({ score: c.score, comment: c.comment ?? null });
      if (!same) m.ratingsWritten += 1;
      m.rating = { score: c.score, comment: c.comment ?? null };
      return;
    }
    case 'label': {
      const r = await request('PATCH', admin(`/conversations/${conversationId}`), {
        token: run.agent.token,
        body: { labels: c.labels },
      });
      expectStatus(r, 200, 'labels');
      const next: string[] = [];
      for (const l of c.labels) {
        const key = l.toLowerCase();
        if (!m.spelling.has(key)) m.spelling.set(key, l);
        const shown = m.spelling.get(key)!;
        if (!next.includes(shown)) next.push(shown);
      }
      m.labels = next;
      expect(r.body.labels).toEqual(next);
    }
  }
}

/** The conversation and its tickets as GET reads them, against the model. */
async function check(run: Run) {
  const { model: m } = run;
  const r = await request('GET', admin(`/conversations/${run.conversationId}`), { token: run.t.ownerToken });
  expectStatus(r, 200, 'GET conversation');
  expect(r.body.conversation).toMatchObject({
    status: m.status,
    labels: m.labels,
    messageCount: m.messageCount,
    latestTicketId: m.latest?.id ?? null,
  });
  const got = new Map((r.body.tickets as Array<Record<string, unknown>>).map((k) => [k.id, k]));
  expect(got.size).toBe(m.tickets.length);
  for (const k of m.tickets) {
    expect(got.get(k.id), `ticket #${k.number}`).toMatchObject({
      number: k.number,
      status: k.status,
      priority: k.priority,
      assigneeId: k.assigneeId,
      firstResponseAt: k.firstResponseAt,
      resolvedAt: k.resolvedAt,
      updatedAt: k.updatedAt,
    });
  }
}

/** Each ticket's audit trail: the model's entries, in order, each later than the one before, the last one at updatedAt. */
async function checkTrails(run: Run) {
  for (const k of run.model.tickets) {
    const r = await request('GET', admin(`/tickets/${k.id}`), { token: run.t.ownerToken });
    expectStatus(r, 200, 'GET ticket');
    const trail = r.body.auditTrail as Array<{
      action: string;
      actor: { type: string; id: string };
      changes: unknown;
      createdAt: string;
    }>;
    expect(
      trail.map(({ action, actor, changes }) => ({ action, actor: { type: actor.type, id: actor.id }, changes })),
      `trail of #${k.number}`,
    ).toEqual(k.trail);
    for (let i = 1; i < trail.length; i++)
      expect(trail[i]!.createdAt > trail[i - 1]!.createdAt, `trail of #${k.number} in order`).toBe(true);
    expect(trail.at(-1)!.createdAt).toBe(k.updatedAt);
  }
}

/** The ticket lists (each filter served by its own index) hold exactly the model's tickets that match. */
async function checkLists(run: Run) {
  const { model: m, t } = run;
  const list = async (query: string) => {
    const r = await request('GET', admin(`/tickets?${query}&limit=100`), { token: t.ownerToken });
    expectStatus(r, 200, `GET /tickets?${query}`);
    return (r.body.items as Array<{ id: string }>).map((k) => k.id).sort();
  };
  const ids = (f: (k: TicketModel) => boolean) =>
    m.tickets
      .filter(f)
      .map((k) => k.id)
      .sort();
  for (const status of new Set(m.tickets.map((k) => k.status))) {
    expect(await list(`status=${status}`), `status=${status}`).toEqual(ids((k) => k.status === status));
  }
  for (const priority of new Set(m.tickets.map((k) => k.priority))) {
    expect(await list(`priority=${priority}`), `priority=${priority}`).toEqual(ids((k) => k.priority === priority));
  }
  const latest = m.latest;
  if (latest) {
    const q = `status=${latest.status}&priority=${latest.priority}`;
    expect(await list(q), q).toEqual(ids((k) => k.status === latest.status && k.priority === latest.priority));
  }
  expect(await list('assignee=none'), 'assignee=none').toEqual(ids((k) => k.assigneeId === null));
  expect(await list('assignee=me'), 'assignee=me').toEqual(ids((k) => k.assigneeId === t.ownerSub));
  expect(await list(`assignee=${run.agent.sub}`), 'assignee=agent').toEqual(ids((k) => k.assigneeId === run.agent.sub));
}

describe('random sequences on a ticket and its conversation', () => {
  it('never answer 5xx and follow the documented state machine, audit trail, timestamps and lists', {
    timeout: 120_000,
  }, async () => {
    // Most sequences start escalated: nearly every command acts on a ticket.
    const sequence = fc
      .tuple(fc.boolean(), fc.array(cmd, { minLength: 1, maxLength: 12 }))
      .map(([bare, cmds]) => (bare ? cmds : [{ kind: 'escalate' } as Cmd, ...cmds]));
    await fc.assert(
      fc.asyncProperty(sequence, async (cmds) => {
        const run = await newRun();
        for (const c of cmds) {
          await apply(run, c);
          await check(run);
        }
        await checkTrails(run);
        await checkLists(run);
      }),
      { numRuns: 25, verbose: true },
    );
  });
});
