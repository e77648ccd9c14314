import { describe, expect, it } from 'vitest';
import { ALLOWED, type Status } from '../fixtures/ticket-transitions.ts';
import {
  admin,
  chat,
  expectProblem,
  memberToken,
  newTenant,
  newTicket,
  request,
  send,
  type TestTenant,
} from './client.ts';

const STATUSES = Object.keys(ALLOWED) as Status[];
/** A path from `open` to each status through allowed moves. */
const PATH: Record<Status, Status[]> = {
  open: [],
  in_progress: ['in_progress'],
  waiting: ['waiting'],
  resolved: ['resolved'],
  closed: ['closed'],
};
const UNKNOWN_TICKET = 'tkt_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const patch = (t: TestTenant, id: string, body: unknown, token = t.ownerToken) =>
  request('PATCH', admin(`/tickets/${id}`), { token, body });
const getTicket = (t: TestTenant, id: string, token = t.ownerToken) =>
  request('GET', admin(`/tickets/${id}`), { token });
const ticketAudit = async (t: TestTenant, id: string) =>
  (await getTicket(t, id)).body.auditTrail as Array<Record<string, any>>;

async function ticketIn(t: TestTenant, status: Status) {
  const k = await newTicket(t);
  for (const s of PATH[status]) expect((await patch(t, k.ticketId, { status: s })).status).toBe(200);
  return k;
}

describe('PATCH /tickets/{id}', () => {
  it('changes status and priority in one request, with one audit entry naming the user', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t, 'printer on fire');
    const r = await patch(t, ticketId, { status: 'in_progress', priority: 'urgent' });
    expect(r.status).toBe(200);
    expect(r.body.ticket).toMatchObject({
      id: ticketId,
      status: 'in_progress',
      priority: 'urgent',
      reason: 'printer on fire',
    });
    expect(r.body.ticket.updatedAt >= r.body.ticket.createdAt).toBe(true);
    expect(Object.keys(r.body.ticket).sort()).toEqual([
      'assigneeId',
      'conversationId',
      'createdAt',
      'firstResponseAt',
      'id',
      'number',
      'priority',
      'reason',
      'resolvedAt',
      'status',
      'updatedAt',
    ]);
    const trail = await ticketAudit(t, ticketId);
    expect(trail.map((e) => e.action)).toEqual(['ticket.created', 'ticket.updated']);
    expect(trail[1]).toMatchObject({
      category: 'ticket',
      actor: { type: 'user', id: t.ownerSub },
      target: { type: 'ticket', id: ticketId },
      changes: { status: { from: 'open', to: 'in_progress' }, priority: { from: 'medium', to: 'urgent' } },
    });
  });

  for (const from of STATUSES) {
    it(`from ${from}: allows exactly the transitions of the table`, async () => {
      const t = await newTenant();
      await Promise.all(
        STATUSES.filter((to) => to !== from).map(async (to) => {
          const { ticketId } = await ticketIn(t, from);
          const before = await ticketAudit(t, ticketId);
          const r = await patch(t, ticketId, { status: to });
          if (ALLOWED[from].includes(to)) {
            expect(r.status, `${from} -> ${to}`).toBe(200);
            expect(r.body.ticket.status).toBe(to);
            const after = await ticketAudit(t, ticketId);
            expect(after).toHaveLength(before.length + 1);
            expect(after.at(-1)!.changes).toEqual({ status: { from, to } });
          } else {
            expectProblem(r, 409, 'INVALID_TRANSITION');
            expect((await getTicket(t, ticketId)).body.ticket.status).toBe(from);
            expect(await ticketAudit(t, ticketId)).toHaveLength(before.length);
          }
        }),
      );
    });
  }

  it('after an agent reply and an assignment, every further change still answers 200 (no unused :null)', async () => {
    const t = await newTenant();
    const { ticketId, conversationId } = await newTicket(t);
    expect(
      (
        await request('POST', admin(`/conversations/${conversationId}/messages`), {
          token: t.ownerToken,
          body: { content: 'On it' },
        })
      ).status,
    ).toBe(201);
    expect((await patch(t, ticketId, { assigneeId: t.ownerSub })).status).toBe(200);
    expect((await patch(t, ticketId, { priority: 'high' })).status).toBe(200);
    expect((await patch(t, ticketId, { status: 'in_progress' })).status).toBe(200);
    expect((await patch(t, ticketId, { assigneeId: null })).status).toBe(200);
    const r = await patch(t, ticketId, { status: 'resolved' });
    expect(r.status).toBe(200);
    expect(r.body.ticket).toMatchObject({ status: 'resolved', priority: 'high', assigneeId: null });
    expect(r.body.ticket.firstResponseAt).toEqual(expect.any(String));
  });

  it('setting the current values again changes nothing and writes no audit entry', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    const before = (await getTicket(t, ticketId)).body.ticket;
    const r = await patch(t, ticketId, { status: 'open', priority: 'medium' });
    expect(r.status).toBe(200);
    expect(r.body.ticket).toEqual(before);
    expect(await ticketAudit(t, ticketId)).toHaveLength(1);
  });

  it('a closed ticket changes no more, priority too', async () => {
    const t = await newTenant();
    const { ticketId } = await ticketIn(t, 'closed');
    expectProblem(await patch(t, ticketId, { priority: 'high' }), 409, 'INVALID_TRANSITION');
    expectProblem(await patch(t, ticketId, { status: 'open' }), 409, 'INVALID_TRANSITION');
    expect((await getTicket(t, ticketId)).body.ticket).toMatchObject({ status: 'closed', priority: 'medium' });
  });

  it('a request with one forbidden part changes nothing', async () => {
    const t = await newTenant();
    const { ticketId } = await ticketIn(t, 'waiting');
    expectProblem(await patch(t, ticketId, { status: 'open', priority: 'urgent' }), 409, 'INVALID_TRANSITION');
    expect((await getTicket(t, ticketId)).body.ticket).toMatchObject({ status: 'waiting', priority: 'medium' });
    expect(await ticketAudit(t, ticketId)).toHaveLength(2);
  });

  it('closing the last ticket closes the conversation; chat then answers CONVERSATION_CLOSED', async () => {
    const t = await newTenant();
    const { ticketId, conversationId } = await newTicket(t);
    expect((await patch(t, ticketId, { status: 'resolved' })).status).toBe(200);
    let conv = await request('GET', admin(`/conversations/${conversationId}`), { token: t.ownerToken });
    expect(conv.body.conversation.status).toBe('escalated');
    expect((await patch(t, ticketId, { status: 'closed' })).status).toBe(200);
    conv = await request('GET', admin(`/conversations/${conversationId}`), { token: t.ownerToken });
    expect(conv.body.conversation.status).toBe('closed');
    const closed = await request('GET', admin('/conversations?status=closed'), { token: t.ownerToken });
    expect(closed.body.items.map((c: { id: string }) => c.id)).toEqual([conversationId]);
    const escalated = await request('GET', admin('/conversations?status=escalated'), { token: t.ownerToken });
    expect(escalated.body.items).toEqual([]);
    expectProblem(await send(t, 'hello again', conversationId), 409, 'CONVERSATION_CLOSED');
  });

  it('a conversation with a resolved then re-escalated ticket closes only when both are closed', async () => {
    const t = await newTenant();
    const first = await newTicket(t);
    expect((await patch(t, first.ticketId, { status: 'resolved' })).status).toBe(200);
    const again = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: first.conversationId, reason: 'again' },
    });
    expect(again.status).toBe(200);
    const second = again.body.ticketId as string;
    expect(second).not.toBe(first.ticketId);
    expect((await patch(t, first.ticketId, { status: 'closed' })).status).toBe(200);
    const conv = () => request('GET', admin(`/conversations/${first.conversationId}`), { token: t.ownerToken });
    expect((await conv()).body.conversation.status).toBe('escalated');
    expect((await patch(t, second, { status: 'closed' })).status).toBe(200);
    expect((await conv()).body.conversation.status).toBe('closed');
  });

  it('answers 400 for a bad body or id, 404 for an unknown id', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    expectProblem(await patch(t, ticketId, {}), 400, 'VALIDATION_ERROR');
    expectProblem(await patch(t, ticketId, { status: 'done' }), 400, 'VALIDATION_ERROR');
    expectProblem(await patch(t, ticketId, { priority: 'critical' }), 400, 'VALIDATION_ERROR');
    const unknown = await patch(t, ticketId, { status: 'open', note: 'x' });
    expectProblem(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.body.errors).toEqual([{ path: 'note', message: 'unknown field' }]);
    expectProblem(
      await request('PATCH', admin(`/tickets/${ticketId}`), {
        token: t.ownerToken,
        raw: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expectProblem(
      await request('PATCH', admin(`/tickets/${ticketId}`), {
        token: t.ownerToken,
        raw: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expectProblem(await patch(t, 'not-a-ticket', { status: 'open' }), 400, 'VALIDATION_ERROR');
    expectProblem(await patch(t, ticketId.toLowerCase(), { status: 'open' }), 400, 'VALIDATION_ERROR');
    expectProblem(await patch(t, UNKNOWN_TICKET, { status: 'closed' }), 404, 'NOT_FOUND');
    expectProblem(await getTicket(t, UNKNOWN_TICKET), 404, 'NOT_FOUND');
    expectProblem(await getTicket(t, 'tkt_123'), 400, 'VALIDATION_ERROR');
  });

  it("never reaches another tenant's ticket: 404 and nothing changes", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { ticketId } = await newTicket(b);
    expectProblem(await patch(a, ticketId, { status: 'closed' }), 404, 'NOT_FOUND');
    expectProblem(await getTicket(a, ticketId), 404, 'NOT_FOUND');
    const seen = await getTicket(b, ticketId);
    expect(seen.body.ticket.status).toBe('open');
    expect(seen.body.auditTrail).toHaveLength(1);
    const audit = await request('GET', admin('/audit?category=ticket'), { token: a.ownerToken });
    expect(audit.body.items).toEqual([]);
  });

  it('concurrent PATCHes lose no update and no audit entry', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    const priorities = ['low', 'high', 'urgent', 'medium', 'low', 'urgent', 'high', 'low', 'medium', 'urgent'];
    const results = await Promise.all(priorities.map((priority) => patch(t, ticketId, { priority })));
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    const { ticket, auditTrail } = (await getTicket(t, ticketId)).body;
    const updates = auditTrail.filter((e: { action: string }) => e.action === 'ticket.updated');
    // Each recorded change starts where the previous one ended: no write was based on a stale read.
    let current = 'medium';
    for (const e of updates) {
      expect(e.changes.priority.from).toBe(current);
      expect(e.changes.priority.to).not.toBe(current);
      current = e.changes.priority.to;
    }
    expect(ticket.priority).toBe(current);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThanOrEqual(results.filter((r) => r.status === 200).length);
  });

  it('concurrent status changes keep the open-tickets counter exact', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    const results = await Promise.all(
      ['resolved', 'open', 'resolved', 'open', 'resolved', 'in_progress', 'resolved', 'open'].map((status) =>
        patch(t, ticketId, { status }),
      ),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const { ticket } = (await getTicket(t, ticketId)).body;
    const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
    expect(stats.body.kpis.openTickets).toBe(['open', 'in_progress', 'waiting'].includes(ticket.status) ? 1 : 0);
  });
});

describe('GET /tickets', () => {
  async function threeTickets() {
    const t = await newTenant();
    const a = await newTicket(t, 'first');
    const b = await newTicket(t, 'second');
    const c = await newTicket(t, 'third');
    await patch(t, a.ticketId, { priority: 'high' });
    await patch(t, b.ticketId, { status: 'waiting', priority: 'high' });
    await patch(t, c.ticketId, { status: 'waiting' });
    return { t, a: a.ticketId, b: b.ticketId, c: c.ticketId };
  }
  const ids = (r: { body: { items: Array<{ id: string }> } }) => r.body.items.map((i) => i.id);
  const list = (t: TestTenant, qs: string, token = t.ownerToken) => request('GET', admin(`/tickets${qs}`), { token });

  it('lists newest first, by status, by priority and by both', async () => {
    const { t, a, b, c } = await threeTickets();
    const all = await list(t, '');
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([c, b, a]);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items[0]).toMatchObject({ id: c, status: 'waiting', priority: 'medium', reason: 'third' });
    expect(ids(await list(t, '?status=waiting'))).toEqual([c, b]);
    expect(ids(await list(t, '?status=open'))).toEqual([a]);
    expect(ids(await list(t, '?priority=high'))).toEqual([b, a]);
    expect(ids(await list(t, '?status=waiting&priority=high'))).toEqual([b]);
    expect(ids(await list(t, '?status=closed&priority=high'))).toEqual([]);
  });

  it('pages with a cursor bound to the tenant and filters, also with both filters', async () => {
    const { t, a, b, c } = await threeTickets();
    const p1 = await list(t, '?limit=2');
    expect(ids(p1)).toEqual([c, b]);
    const p2 = await list(t, `?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
    expect(ids(p2)).toEqual([a]);
    expect(p2.body.nextCursor).toBeNull();

    const extra = await newTicket(t);
    await patch(t, extra.ticketId, { status: 'waiting', priority: 'high' });
    const f1 = await list(t, '?status=waiting&priority=high&limit=1');
    expect(ids(f1)).toEqual([extra.ticketId]);
    const f2 = await list(t, `?priority=high&status=waiting&limit=1&cursor=${encodeURIComponent(f1.body.nextCursor)}`);
    expect(ids(f2)).toEqual([b]);

    const cursor = encodeURIComponent(p1.body.nextCursor);
    expectProblem(await list(t, `?status=open&limit=2&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    const other = await newTenant();
    expectProblem(await list(other, `?limit=2&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    const [payload, sig] = (p1.body.nextCursor as string).split('.');
    const flipped = `${payload!.slice(0, -2)}${payload!.at(-2) === 'A' ? 'B' : 'A'}${payload!.at(-1)}.${sig}`;
    expectProblem(await list(t, `?cursor=${encodeURIComponent(flipped)}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(t, '?cursor=garbage'), 400, 'INVALID_CURSOR');
    expectProblem(
      await request('GET', admin(`/conversations?cursor=${cursor}`), { token: t.ownerToken }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('rejects bad filters, limits and unknown query parameters', async () => {
    const t = await newTenant();
    expectProblem(await list(t, '?status=done'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?priority=critical'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?limit=0'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?limit=101'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?limit=abc'), 400, 'VALIDATION_ERROR');
    const r = await list(t, '?sort=asc');
    expectProblem(r, 400, 'VALIDATION_ERROR');
    expect(r.body.errors).toEqual([{ path: 'sort', message: 'unknown query parameter' }]);
    expect((await list(t, '?limit=100')).status).toBe(200);
  });

  it('GET /tickets/{id} returns the ticket, its conversation and its audit trail oldest first', async () => {
    const t = await newTenant();
    const { ticketId, conversationId } = await newTicket(t);
    await patch(t, ticketId, { status: 'in_progress' });
    await patch(t, ticketId, { status: 'resolved' });
    const r = await getTicket(t, ticketId);
    expect(r.status).toBe(200);
    expect(r.body.ticket).toMatchObject({ id: ticketId, conversationId, status: 'resolved' });
    expect(r.body.conversation).toMatchObject({ id: conversationId, status: 'escalated' });
    expect(r.body.auditTrail.map((e: { action: string }) => e.action)).toEqual([
      'ticket.created',
      'ticket.updated',
      'ticket.updated',
    ]);
    expect(r.body.auditTrail.map((e: { changes: any }) => e.changes.status.to)).toEqual([
      'open',
      'in_progress',
      'resolved',
    ]);
  });
});

describe('ticket roles', () => {
  it('a viewer reads but may not PATCH; an agent may', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    const viewer = await memberToken(t, 'viewer');
    const agent = await memberToken(t, 'agent');
    expect((await request('GET', admin('/tickets'), { token: viewer.token })).status).toBe(200);
    expect((await getTicket(t, ticketId, viewer.token)).status).toBe(200);
    expectProblem(await patch(t, ticketId, { status: 'closed' }, viewer.token), 403, 'FORBIDDEN');
    expect((await getTicket(t, ticketId)).body.ticket.status).toBe('open');
    const r = await patch(t, ticketId, { status: 'in_progress' }, agent.token);
    expect(r.status).toBe(200);
    expect((await ticketAudit(t, ticketId)).at(-1)!.actor).toEqual({ type: 'user', id: agent.sub });
  });
});
