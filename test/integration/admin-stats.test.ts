import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, newTicket, request, send, type TestTenant } from './client.ts';

const stats = (t: TestTenant, qs = '', token = t.ownerToken) => request('GET', admin(`/stats${qs}`), { token });
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('GET /stats', () => {
  it('a fresh tenant has zeros, null confidence and the default 30-day period', async () => {
    const t = await newTenant();
    const r = await stats(t);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      period: { from: daysAgo(29), to: today() },
      kpis: {
        conversations: 0,
        messages: 0,
        escalations: 0,
        escalationRate: 0,
        openTickets: 0,
        avgConfidence: null,
        fallbackRate: 0,
        fallbacks: 0,
        knowledgeAnswers: 0,
        avgFirstResponseSeconds: null,
        avgResolutionSeconds: null,
        csat: null,
        ratings: 0,
        assistantResolutions: 0,
        assistantResolutionRate: 0,
      },
      topIntents: [],
      topArticles: [],
      recentConversations: [],
      series: Array.from({ length: 30 }, (_, i) => ({
        date: daysAgo(29 - i),
        conversations: 0,
        messages: 0,
        escalations: 0,
        fallbacks: 0,
      })),
    });
  });

  it('after N chat messages shows exactly N messages, with the KPIs they imply', async () => {
    const t = await newTenant();
    const replies = [];
    const c1 = await send(t, 'hello');
    replies.push(c1);
    // Not an order question: the starter order_status hands over, and this conversation must stay unescalated.
    replies.push(await send(t, 'thank you very much', c1.body.conversationId));
    replies.push(await send(t, 'what is the capital of France', c1.body.conversationId));
    const c2 = await send(t, 'hi there');
    replies.push(c2);
    replies.push(await send(t, 'hello again', c2.body.conversationId));
    for (const r of replies) expect(r.status).toBe(200);
    await request('POST', '/api/v1/chat/escalate', {
      widgetKey: t.widgetKey,
      body: { conversationId: c2.body.conversationId, reason: 'x' },
    });

    const r = await stats(t, `?from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    const k = r.body.kpis;
    expect(k.messages).toBe(5);
    expect(k.conversations).toBe(2);
    expect(k.escalations).toBe(1);
    expect(k.escalationRate).toBe(0.5);
    expect(k.openTickets).toBe(1);
    const fallbacks = replies.filter((x) => x.body.metadata.intentDetected === 'fallback').length;
    expect(fallbacks).toBeGreaterThan(0);
    expect(k.fallbackRate).toBeCloseTo(fallbacks / 5, 10);
    const mean = replies.reduce((s, x) => s + x.body.metadata.confidence, 0) / 5;
    expect(k.avgConfidence).toBeCloseTo(mean, 6);
    const counts = new Map<string, number>();
    for (const x of replies)
      if (x.body.metadata.intentDetected !== 'fallback')
        counts.set(x.body.metadata.intentDetected, (counts.get(x.body.metadata.intentDetected) ?? 0) + 1);
    expect(r.body.topIntents.map((i: { intent: string }) => i.intent)).not.toContain('fallback');
    expect(
      Object.fromEntries(r.body.topIntents.map((i: { intent: string; count: number }) => [i.intent, i.count])),
    ).toEqual(Object.fromEntries(counts));
    expect(r.body.recentConversations.map((c: { id: string }) => c.id)).toEqual([
      c2.body.conversationId,
      c1.body.conversationId,
    ]);
    expect(r.body.recentConversations[1]).toMatchObject({ messageCount: 6, status: 'active' });

    // A period without activity counts nothing; openTickets is "now", whatever the period.
    const past = await stats(t, '?from=2020-01-01&to=2020-01-31');
    expect(past.body.kpis).toEqual({
      conversations: 0,
      messages: 0,
      escalations: 0,
      escalationRate: 0,
      openTickets: 1,
      avgConfidence: null,
      fallbackRate: 0,
      fallbacks: 0,
      knowledgeAnswers: 0,
      avgFirstResponseSeconds: null,
      avgResolutionSeconds: null,
      csat: null,
      ratings: 0,
      assistantResolutions: 0,
      assistantResolutionRate: 0,
    });
    expect(past.body.period).toEqual({ from: '2020-01-01', to: '2020-01-31' });
  });

  it('openTickets follows ticket status changes and never goes below 0', async () => {
    const t = await newTenant();
    const a = await newTicket(t);
    const b = await newTicket(t);
    expect((await stats(t)).body.kpis.openTickets).toBe(2);
    await request('PATCH', admin(`/tickets/${a.ticketId}`), { token: t.ownerToken, body: { status: 'resolved' } });
    expect((await stats(t)).body.kpis.openTickets).toBe(1);
    await request('PATCH', admin(`/tickets/${a.ticketId}`), { token: t.ownerToken, body: { status: 'closed' } });
    await request('PATCH', admin(`/tickets/${b.ticketId}`), { token: t.ownerToken, body: { status: 'waiting' } });
    expect((await stats(t)).body.kpis.openTickets).toBe(1);
    await request('PATCH', admin(`/tickets/${b.ticketId}`), { token: t.ownerToken, body: { status: 'closed' } });
    expect((await stats(t)).body.kpis.openTickets).toBe(0);
  });

  it('shows at most 10 recent conversations, newest first', async () => {
    const t = await newTenant();
    const made: string[] = [];
    for (let i = 0; i < 11; i++) made.unshift((await send(t, 'hello')).body.conversationId);
    const r = await stats(t);
    expect(r.body.recentConversations.map((c: { id: string }) => c.id)).toEqual(made.slice(0, 10));
    expect(r.body.kpis.conversations).toBe(11);
  });

  it('defaults a lone `from` to today and a lone `to` to 30 days; accepts 366 days', async () => {
    const t = await newTenant();
    expect((await stats(t, `?from=${daysAgo(3)}`)).body.period).toEqual({ from: daysAgo(3), to: today() });
    expect((await stats(t, '?to=2026-01-30')).body.period).toEqual({ from: '2026-01-01', to: '2026-01-30' });
    expect((await stats(t, '?from=2024-01-01&to=2024-12-31')).status).toBe(200);
  });

  it('rejects bad dates, reversed or too long periods and unknown parameters', async () => {
    const t = await newTenant();
    for (const qs of [
      '?from=2026-1-01',
      '?from=2026-02-30',
      '?to=yesterday',
      '?from=2026-03-02&to=2026-03-01',
      '?from=2024-01-01&to=2025-01-01',
      '?days=7',
      '?from=2026-01-01T00:00:00Z',
    ]) {
      expectProblem(await stats(t, qs), 400, 'VALIDATION_ERROR');
    }
  });

  it('is open to viewers', async () => {
    const t = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    expect((await stats(t, '', viewer.token)).status).toBe(200);
  });
});
