import { describe, expect, it } from 'vitest';
import { admin, chat, expectProblem, newSub, newTenant, request, send, tokenFor } from './client.ts';
import { handlerExists, intentBody, noteMissing } from './security/routes.ts';

// Races: every counter stays exact and every uniqueness rule holds under concurrent requests.

const need = (handler: string, method: string, path: string, ctx: { skip: () => void }) => {
  if (handlerExists(handler)) return true;
  noteMissing('concurrency', { method: method as 'GET', path, handler });
  ctx.skip();
  return false;
};

describe('concurrency', () => {
  it('ten concurrent escalations of one conversation make one ticket', async () => {
    const t = await newTenant();
    const id = (await send(t, 'hello there')).body.conversationId;
    const all = await Promise.all(
      Array.from({ length: 10 }, () =>
        request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId: id, reason: 'race' } }),
      ),
    );
    expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(all.map((r) => r.body.ticketId)).size).toBe(1);
    const conv = (await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey })).body;
    expect(conv.messages).toHaveLength(3);
    expect(conv.conversation.status).toBe('escalated');
    if (handlerExists('admin/list-tickets')) {
      const tickets = await request('GET', admin('/tickets?limit=100'), { token: t.ownerToken });
      expect(tickets.body.items.map((x: { id: string }) => x.id)).toEqual([all[0]!.body.ticketId]);
    }
    if (handlerExists('admin/get-stats')) {
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis).toMatchObject({ escalations: 1, openTickets: 1, conversations: 1 });
    }
  });

  it('ten concurrent onboards of one user make one tenant', async () => {
    const sub = newSub('race');
    const token = await tokenFor(sub, `${sub}@example.com`);
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request('POST', admin('/auth/onboard'), { token, body: { tenantName: `Race ${i}` } }),
      ),
    );
    const created = all.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of all.filter((x) => x.status !== 201)) expectProblem(r, 409, 'ALREADY_ONBOARDED');
    const me = await request('GET', admin('/auth/me'), { token });
    expect(me.body.tenant.id).toBe(created[0]!.body.tenant.id);
    expect(me.body.role).toBe('owner');
    // The winner's widget key works; the tenant has its starter intents.
    expect((await send({ widgetKey: created[0]!.body.widgetKey }, 'hello')).status).toBe(200);
  });

  it('concurrent messages in one conversation and across conversations keep every counter exact', async () => {
    const t = await newTenant();
    const convs: string[] = [];
    for (let i = 0; i < 4; i++) convs.push((await send(t, 'hello there')).body.conversationId);
    // 8 concurrent messages into each of 4 conversations: 32 at once. Not order questions: the starter
    // order_status hands over, and the assistant is silent after a hand-over (no reply to count).
    const results = await Promise.all(
      convs.flatMap((id) =>
        Array.from({ length: 8 }, (_, i) => send(t, `thank you very much, ${1000 + i}`, id).then((r) => ({ id, r }))),
      ),
    );
    const statuses = results.map((x) => x.r.status);
    // Contention is absorbed by the service (retries), never surfaced as an error or a lost write.
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const okPer = new Map(convs.map((id) => [id, 1 + results.filter((x) => x.id === id && x.r.status === 200).length]));
    for (const id of convs) {
      const msgs = (await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey })).body
        .messages as Array<{ role: string }>;
      expect(msgs.filter((m) => m.role === 'user')).toHaveLength(okPer.get(id)!);
      expect(msgs).toHaveLength(2 * okPer.get(id)!);
    }
    const total = [...okPer.values()].reduce((a, b) => a + b, 0);
    if (handlerExists('admin/list-conversations')) {
      const list = await request('GET', admin('/conversations?limit=100'), { token: t.ownerToken });
      expect(list.body.items).toHaveLength(4);
      for (const c of list.body.items as Array<{ id: string; messageCount: number }>)
        expect(c.messageCount).toBe(2 * okPer.get(c.id)!);
    }
    if (handlerExists('admin/get-stats')) {
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis.messages).toBe(total);
      expect(stats.body.kpis.conversations).toBe(4);
    }
  });

  it('concurrent ticket PATCHes lose no update and no audit entry', async (ctx) => {
    if (!need('admin/patch-ticket', 'PATCH', '/api/v1/admin/tickets/{id}', ctx)) return;
    if (!need('admin/get-ticket', 'GET', '/api/v1/admin/tickets/{id}', ctx)) return;
    const t = await newTenant();
    const id = (await send(t, 'hello there')).body.conversationId;
    const ticketId = (
      await request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId: id, reason: 'race' } })
    ).body.ticketId;
    const all = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        request('PATCH', admin(`/tickets/${ticketId}`), { token: t.ownerToken, body: { status: 'in_progress' } }),
      ),
      ...Array.from({ length: 5 }, () =>
        request('PATCH', admin(`/tickets/${ticketId}`), { token: t.ownerToken, body: { priority: 'urgent' } }),
      ),
    ]);
    expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
    const got = await request('GET', admin(`/tickets/${ticketId}`), { token: t.ownerToken });
    expect(got.body.ticket).toMatchObject({ status: 'in_progress', priority: 'urgent' });
    const trail = got.body.auditTrail as Array<{
      action: string;
      changes: Record<string, { from: unknown; to: unknown }>;
    }>;
    const statusChanges = trail.filter((e) => e.changes.status && e.changes.status.to === 'in_progress');
    const priorityChanges = trail.filter((e) => e.changes.priority && e.changes.priority.to === 'urgent');
    expect(statusChanges).toHaveLength(1);
    expect(statusChanges[0]!.changes.status!.from).toBe('open');
    expect(priorityChanges).toHaveLength(1);
    expect(priorityChanges[0]!.changes.priority!.from).toBe('medium');
  });

  it('concurrent intent creates with one name make one intent', async (ctx) => {
    if (!need('admin/create-intent', 'POST', '/api/v1/admin/intents', ctx)) return;
    const t = await newTenant();
    const body = intentBody();
    const all = await Promise.all(
      Array.from({ length: 8 }, () => request('POST', admin('/intents'), { token: t.ownerToken, body })),
    );
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of all.filter((x) => x.status !== 201)) expectProblem(r, 409, 'CONFLICT');
    if (handlerExists('admin/list-intents')) {
      const list = await request('GET', admin('/intents'), { token: t.ownerToken });
      expect(list.body.items.filter((i: { name: string }) => i.name === body.name)).toHaveLength(1);
    }
  });
});
