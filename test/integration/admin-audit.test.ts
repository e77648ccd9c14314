import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, newTicket, request, type TestTenant } from './client.ts';

const audit = (t: TestTenant, qs = '', token = t.ownerToken) => request('GET', admin(`/audit${qs}`), { token });
const patch = (t: TestTenant, id: string, body: unknown) =>
  request('PATCH', admin(`/tickets/${id}`), { token: t.ownerToken, body });

describe('GET /audit', () => {
  it('starts with the onboarding entry', async () => {
    const t = await newTenant();
    const r = await audit(t);
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    const tenantEntries = r.body.items.filter((e: { category: string }) => e.category === 'auth');
    expect(tenantEntries).toEqual([
      {
        id: expect.any(String),
        category: 'auth',
        action: 'tenant.created',
        actor: { type: 'user', id: t.ownerSub },
        target: { type: 'tenant', id: t.tenantId },
        changes: { name: { from: null, to: 'Test Shop' } },
        createdAt: expect.any(String),
        actorName: expect.any(String),
        targetName: 'Test Shop',
        names: {},
      },
    ]);
  });

  it('has exactly one entry per ticket change, newest first, filtered by category', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    await patch(t, ticketId, { status: 'in_progress' });
    await patch(t, ticketId, { status: 'in_progress' }); // no change, no entry
    await patch(t, ticketId, { priority: 'high' });
    await patch(t, ticketId, { status: 'open', priority: 'low' });
    await patch(t, ticketId, { status: 'waiting' }).then((r) => expect(r.status).toBe(200));
    await patch(t, ticketId, { status: 'open' }).then((r) => expect(r.status).toBe(409)); // refused, no entry
    const r = await audit(t, '?category=ticket');
    expect(r.status).toBe(200);
    expect(r.body.items.map((e: { action: string }) => e.action)).toEqual([
      'ticket.updated',
      'ticket.updated',
      'ticket.updated',
      'ticket.updated',
      'ticket.created',
    ]);
    expect(r.body.items.map((e: { changes: unknown }) => e.changes)).toEqual([
      { status: { from: 'open', to: 'waiting' } },
      { status: { from: 'in_progress', to: 'open' }, priority: { from: 'high', to: 'low' } },
      { priority: { from: 'medium', to: 'high' } },
      { status: { from: 'open', to: 'in_progress' } },
      { status: { from: null, to: 'open' }, priority: { from: null, to: 'medium' } },
    ]);
    const created = r.body.items.map((e: { createdAt: string }) => e.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    for (const e of r.body.items) expect(e.target).toEqual({ type: 'ticket', id: ticketId });
    expect((await audit(t, '?category=auth')).body.items).toHaveLength(1);
    expect((await audit(t, '?category=intent')).body.items).toEqual([]);
    expect((await audit(t)).body.items.length).toBeGreaterThanOrEqual(6);
  });

  it('pages with a cursor bound to tenant and category', async () => {
    const t = await newTenant();
    const { ticketId } = await newTicket(t);
    for (const status of ['in_progress', 'waiting', 'resolved']) await patch(t, ticketId, { status });
    const all = (await audit(t, '?limit=100')).body.items.map((e: { id: string }) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: Awaited<ReturnType<typeof audit>> = await audit(
        t,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...r.body.items.map((e: { id: string }) => e.id));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);

    const c = (await audit(t, '?category=ticket&limit=1')).body.nextCursor as string;
    expect((await audit(t, `?category=ticket&limit=1&cursor=${encodeURIComponent(c)}`)).status).toBe(200);
    expectProblem(await audit(t, `?category=auth&cursor=${encodeURIComponent(c)}`), 400, 'INVALID_CURSOR');
    expectProblem(await audit(t, `?cursor=${encodeURIComponent(c)}`), 400, 'INVALID_CURSOR');
    expectProblem(
      await audit(await newTenant(), `?category=ticket&cursor=${encodeURIComponent(c)}`),
      400,
      'INVALID_CURSOR',
    );
    expectProblem(
      await audit(t, `?category=ticket&cursor=${encodeURIComponent(c.replace('.', '.A'))}`),
      400,
      'INVALID_CURSOR',
    );
  });

  it('rejects a bad category, limit or unknown parameter', async () => {
    const t = await newTenant();
    expectProblem(await audit(t, '?category=billing'), 400, 'VALIDATION_ERROR');
    expectProblem(await audit(t, '?limit=0'), 400, 'VALIDATION_ERROR');
    expectProblem(await audit(t, '?actor=me'), 400, 'VALIDATION_ERROR');
  });

  it("shows only the caller's tenant", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await newTicket(b);
    expect((await audit(a, '?category=ticket')).body.items).toEqual([]);
  });

  it('needs the admin role', async () => {
    const t = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    const agent = await memberToken(t, 'agent');
    const adminUser = await memberToken(t, 'admin');
    expectProblem(await audit(t, '', viewer.token), 403, 'FORBIDDEN');
    expectProblem(await audit(t, '', agent.token), 403, 'FORBIDDEN');
    expect((await audit(t, '', adminUser.token)).status).toBe(200);
  });
});
