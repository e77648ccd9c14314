import { describe, expect, it } from 'vitest';
import {
  admin,
  chat,
  expectProblem,
  memberToken,
  newTenant,
  newTicket,
  request,
  send,
  tokenFor,
  newSub,
  untilIndexed,
} from './client.ts';
import { displayNameOf } from '#shared/domain/tenants/me.ts';

const agentReply = (token: string, conversationId: string, content: string) =>
  request('POST', admin(`/conversations/${conversationId}/messages`), { token, body: { content } });
const ticketOf = async (token: string, id: string) => (await request('GET', admin(`/tickets/${id}`), { token })).body;

describe('agent messages', () => {
  it('answer in the conversation; the first one takes the ticket in progress and silences the assistant', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const { conversationId, ticketId } = await newTicket(t);

    const r = await agentReply(agent.token, conversationId, 'Hi, I am looking into it.');
    expect(r.status).toBe(201);
    expect(r.body.message).toMatchObject({
      role: 'agent',
      content: 'Hi, I am looking into it.',
      author: { id: agent.sub, name: displayNameOf(null, agent) },
    });

    const detail = await ticketOf(t.ownerToken, ticketId);
    expect(detail.ticket.status).toBe('in_progress');
    expect(detail.ticket.firstResponseAt).toBe(r.body.message.createdAt);
    const audit = detail.auditTrail.at(-1);
    expect(audit).toMatchObject({
      action: 'ticket.updated',
      actor: { type: 'user', id: agent.sub },
      changes: { status: { from: 'open', to: 'in_progress' } },
    });

    // The customer sees the agent's name, never their user id.
    const conv = await request('GET', chat(`/conversations/${conversationId}`), { widgetKey: t.widgetKey });
    const last = conv.body.messages.at(-1);
    expect(last).toEqual({
      id: r.body.message.id,
      role: 'agent',
      content: 'Hi, I am looking into it.',
      createdAt: r.body.message.createdAt,
      author: { name: displayNameOf(null, agent) },
    });

    // Staff see who answered, with the author's id (docs/API.md, Human handoff; the dashboard shows the name).
    const staff = await request('GET', admin(`/conversations/${conversationId}`), { token: t.ownerToken });
    expect(staff.body.messages.at(-1)).toEqual({ ...r.body.message });

    // While a person handles it, the assistant stays silent but the message is kept.
    const quiet = await send(t, 'thanks, waiting', conversationId);
    expect(quiet.status).toBe(200);
    expect(quiet.body).toMatchObject({ conversationId, message: null, handledBy: 'agent' });
    expect(quiet.body.metadata.intentDetected).toBeTypeOf('string');
    const after = await request('GET', chat(`/conversations/${conversationId}`), { widgetKey: t.widgetKey });
    expect(after.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'thanks, waiting' });
    expect(after.body.messages).toHaveLength(conv.body.messages.length + 1);

    // A second agent message changes the ticket no more.
    await agentReply(agent.token, conversationId, 'Found it.');
    expect((await ticketOf(t.ownerToken, ticketId)).ticket.firstResponseAt).toBe(r.body.message.createdAt);

    // Resolved, then closed: the resolution time stays. A new escalation's ticket waits for its own first answer.
    const resolved = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: t.ownerToken,
      body: { status: 'resolved' },
    });
    const closed = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: t.ownerToken,
      body: { status: 'closed' },
    });
    expect(closed.body.ticket.resolvedAt).toBe(resolved.body.ticket.resolvedAt);
    expect(closed.body.ticket.resolvedAt).not.toBeNull();
  });

  it('take each new ticket of a conversation in progress at its own first answer', async () => {
    const t = await newTenant();
    const { conversationId, ticketId } = await newTicket(t);
    await agentReply(t.ownerToken, conversationId, 'First ticket, first answer');
    await request('PATCH', admin(`/tickets/${ticketId}`), { token: t.ownerToken, body: { status: 'resolved' } });
    const again = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId, reason: 'It broke again' },
    });
    expect(again.body.ticketId).not.toBe(ticketId);
    expect((await ticketOf(t.ownerToken, again.body.ticketId)).ticket).toMatchObject({
      status: 'open',
      firstResponseAt: null,
    });
    const r = await agentReply(t.ownerToken, conversationId, 'Second ticket, first answer');
    expect((await ticketOf(t.ownerToken, again.body.ticketId)).ticket).toMatchObject({
      status: 'in_progress',
      firstResponseAt: r.body.message.createdAt,
    });
  });

  it('carry the display name a member chose', async () => {
    const t = await newTenant();
    const me = await request('GET', admin('/auth/me'), { token: t.ownerToken });
    expect(me.body).toMatchObject({
      displayName: displayNameOf(null, { email: t.ownerEmail }),
      displayNameChosen: false,
    });
    const p = await request('PATCH', admin('/auth/me'), {
      token: t.ownerToken,
      body: { displayName: '  Dana from Support ' },
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ displayName: 'Dana from Support', displayNameChosen: true, role: 'owner' });
    // The member list names them the same way.
    const listed = (await request('GET', admin('/members'), { token: t.ownerToken })).body.items;
    expect(listed.find((m: { userId: string }) => m.userId === t.ownerSub).displayName).toBe('Dana from Support');
    const { conversationId } = await newTicket(t);
    const r = await agentReply(t.ownerToken, conversationId, 'Hello!');
    expect(r.body.message.author.name).toBe('Dana from Support');
    for (const body of [{}, { displayName: '' }, { displayName: 'x'.repeat(61) }, { displayName: 'ok', extra: 1 }]) {
      expectProblem(await request('PATCH', admin('/auth/me'), { token: t.ownerToken, body }), 400, 'VALIDATION_ERROR');
    }
    // A user of no tenant has no name to set.
    const stranger = await tokenFor(newSub('stranger'), 'stranger@example.com');
    expectProblem(
      await request('PATCH', admin('/auth/me'), { token: stranger, body: { displayName: 'Me' } }),
      403,
      'NOT_ONBOARDED',
    );
  });

  it('are refused on a closed conversation, for viewers, for another tenant and when malformed', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    const { conversationId, ticketId } = await newTicket(t);
    expectProblem(await agentReply(viewer.token, conversationId, 'hi'), 403, 'FORBIDDEN');
    expectProblem(await agentReply(other.ownerToken, conversationId, 'hi'), 404, 'NOT_FOUND');
    expectProblem(await agentReply(t.ownerToken, conversationId, ''), 400, 'VALIDATION_ERROR');
    expectProblem(await agentReply(t.ownerToken, conversationId, 'x'.repeat(5001)), 400, 'VALIDATION_ERROR');
    expect((await agentReply(t.ownerToken, conversationId, 'x'.repeat(5000))).status).toBe(201);
    const closed = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: t.ownerToken,
      body: { status: 'closed' },
    });
    expect(closed.status).toBe(200);
    expectProblem(await agentReply(t.ownerToken, conversationId, 'still there?'), 409, 'CONVERSATION_CLOSED');
  });

  it('ten at once are all stored, each once, and commit in the order of their createdAt', async () => {
    const t = await newTenant();
    const { conversationId } = await newTicket(t);
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => agentReply(t.ownerToken, conversationId, `reply ${i}`)),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
    const conv = await request('GET', chat(`/conversations/${conversationId}`), { widgetKey: t.widgetKey });
    const agents = conv.body.messages.filter((m: { role: string }) => m.role === 'agent');
    expect(agents).toHaveLength(10);
    expect(new Set(agents.map((m: { createdAt: string }) => m.createdAt)).size).toBe(10);
    const times = agents.map((m: { createdAt: string }) => m.createdAt);
    expect(times).toEqual([...times].sort());
  });
});

describe('assignment', () => {
  it('assigns to an active member, filters by assignee and refuses anyone else', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const a = await newTicket(t);
    const b = await newTicket(t);
    const patch = (id: string, body: unknown, token = t.ownerToken) =>
      request('PATCH', admin(`/tickets/${id}`), { token, body });

    const r = await patch(a.ticketId, { assigneeId: agent.sub });
    expect(r.status).toBe(200);
    expect(r.body.ticket).toMatchObject({ assigneeId: agent.sub, firstResponseAt: null, resolvedAt: null });
    const mine = await request('GET', admin('/tickets?assignee=me'), { token: agent.token });
    expect(mine.body.items.map((x: { id: string }) => x.id)).toEqual([a.ticketId]);
    const none = await request('GET', admin('/tickets?assignee=none'), { token: t.ownerToken });
    expect(none.body.items.map((x: { id: string }) => x.id)).toEqual([b.ticketId]);
    const byId = await request('GET', admin(`/tickets?assignee=${agent.sub}&status=open`), { token: t.ownerToken });
    expect(byId.body.items.map((x: { id: string }) => x.id)).toEqual([a.ticketId]);

    expectProblem(await patch(b.ticketId, { assigneeId: 'not-a-member' }), 400, 'VALIDATION_ERROR');
    const outsider = await newTenant();
    expectProblem(await patch(b.ticketId, { assigneeId: outsider.ownerSub }), 400, 'VALIDATION_ERROR');
    const invited = await request('POST', admin('/members'), {
      token: t.ownerToken,
      body: { email: 'later@example.com', role: 'agent' },
    });
    expectProblem(await patch(b.ticketId, { assigneeId: invited.body.id }), 400, 'VALIDATION_ERROR');
    expect((await ticketOf(t.ownerToken, b.ticketId)).ticket.assigneeId).toBeNull();

    const un = await patch(a.ticketId, { assigneeId: null });
    expect(un.body.ticket.assigneeId).toBeNull();
    const trail = (await ticketOf(t.ownerToken, a.ticketId)).auditTrail;
    expect(trail.filter((e: { changes: Record<string, unknown> }) => 'assigneeId' in e.changes)).toHaveLength(2);
  });
});

describe('ratings and support KPIs', () => {
  it('rates a conversation, replaces a rating, and /stats reports first response, resolution, CSAT and the series', async () => {
    const t = await newTenant();
    const { conversationId, ticketId } = await newTicket(t);
    await agentReply(t.ownerToken, conversationId, 'On it');
    const resolved = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: t.ownerToken,
      body: { status: 'resolved' },
    });
    expect(resolved.body.ticket.resolvedAt).toBe(resolved.body.ticket.updatedAt);

    const rate = (body: unknown, id = conversationId, widgetKey = t.widgetKey) =>
      request('POST', chat(`/conversations/${id}/rating`), { widgetKey, body });
    const first = await rate({ score: 2 });
    expect(first.status).toBe(200);
    expect(first.body.rating).toMatchObject({ score: 2, comment: null });
    const second = await rate({ score: 5, comment: ' Great help ' });
    expect(second.body.rating).toMatchObject({ score: 5, comment: 'Great help' });
    for (const body of [
      {},
      { score: 0 },
      { score: 6 },
      { score: 2.5 },
      { score: '5' },
      { score: 3, comment: '' },
      { score: 3, comment: 'x'.repeat(1001) },
    ]) {
      expectProblem(await rate(body), 400, 'VALIDATION_ERROR');
    }
    expectProblem(await rate({ score: 4 }, '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b'), 404, 'NOT_FOUND');
    const other = await newTenant();
    expectProblem(await rate({ score: 4 }, conversationId, other.widgetKey), 404, 'NOT_FOUND');

    const s = await request('GET', admin('/stats'), { token: t.ownerToken });
    expect(s.status).toBe(200);
    expect(s.body.kpis).toMatchObject({ ratings: 1, csat: 5 });
    expect(s.body.kpis.avgFirstResponseSeconds).toBeGreaterThanOrEqual(0);
    expect(s.body.kpis.avgResolutionSeconds).toBeGreaterThanOrEqual(s.body.kpis.avgFirstResponseSeconds);
    expect(s.body.series).toHaveLength(30);
    expect(s.body.series.at(-1)).toMatchObject({ conversations: 1, messages: 1, escalations: 1 });
    expect(s.body.series.map((d: { date: string }) => d.date)).toEqual(
      [...s.body.series.map((d: { date: string }) => d.date)].sort(),
    );
  });
});

describe('POST /nlu/parse', () => {
  it('answers as the next chat message would, and stores and counts nothing', async () => {
    const t = await newTenant();
    // The same models for both: the starter intents' vectors, once indexed (before that, words alone).
    await untilIndexed(t);
    const viewer = await memberToken(t, 'viewer');
    const before = (await request('GET', admin('/stats'), { token: t.ownerToken })).body.kpis;
    const p = await request('POST', admin('/nlu/parse'), { token: viewer.token, body: { message: 'hello there' } });
    expect(p.status).toBe(200);
    const c = await send(t, 'hello there');
    expect(p.body).toEqual({
      intentDetected: c.body.metadata.intentDetected,
      confidence: c.body.metadata.confidence,
      entitiesExtracted: c.body.metadata.entitiesExtracted,
      intentRanking: c.body.metadata.intentRanking,
      reply: c.body.message.content,
      sources: [],
      candidates: expect.any(Object),
    });
    const after = (await request('GET', admin('/stats'), { token: t.ownerToken })).body.kpis;
    expect(after.messages - before.messages).toBe(1);
    expectProblem(
      await request('POST', admin('/nlu/parse'), { token: viewer.token, body: { message: '' } }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('GET /chat/widget', () => {
  it('gives the name, greeting, theme with defaults and the live URL, from the settings as they are now', async () => {
    const t = await newTenant('Widget Shop');
    const w = await request('GET', chat('/widget'), { widgetKey: t.widgetKey });
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({
      name: 'Widget Shop',
      theme: { color: '#2563eb', position: 'right', title: 'Widget Shop' },
    });
    expect(w.body.greeting).toBeTypeOf('string');
    expect(w.body.liveUrl).toMatch(/^wss?:\/\/.+\/api\/v1\/live$/);
    await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: {
        config: {
          assistant: { greeting: 'Welcome!' },
          widget: { theme: { color: '#112233', position: 'left', title: 'Help' } },
        },
      },
    });
    const after = await request('GET', chat('/widget'), { widgetKey: t.widgetKey });
    expect(after.body).toMatchObject({
      greeting: 'Welcome!',
      theme: { color: '#112233', position: 'left', title: 'Help' },
    });
    expectProblem(
      await request('GET', chat('/widget'), { widgetKey: 'wk_nope_nope_nope_nope_nope_nope' }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('allowed origins apply to the very next chat request', () => {
  it('on every chat route', async () => {
    const t = await newTenant();
    const m = await send(t, 'hello');
    const id = m.body.conversationId as string;
    const calls = [
      () =>
        request('POST', chat('/message'), {
          widgetKey: t.widgetKey,
          body: { message: 'hi', conversationId: id },
          headers: { origin: 'https://evil.example' },
        }),
      () =>
        request('POST', chat('/message'), {
          widgetKey: t.widgetKey,
          body: { message: 'hi' },
          headers: { origin: 'https://evil.example' },
        }),
      () =>
        request('GET', chat(`/conversations/${id}`), {
          widgetKey: t.widgetKey,
          headers: { origin: 'https://evil.example' },
        }),
      () =>
        request('POST', chat('/escalate'), {
          widgetKey: t.widgetKey,
          body: { conversationId: id, reason: 'x' },
          headers: { origin: 'https://evil.example' },
        }),
      () => request('GET', chat('/widget'), { widgetKey: t.widgetKey, headers: { origin: 'https://evil.example' } }),
      () =>
        request('POST', chat(`/conversations/${id}/rating`), {
          widgetKey: t.widgetKey,
          body: { score: 4 },
          headers: { origin: 'https://evil.example' },
        }),
    ];
    // Warm every route's cached widget key first: the origin rule must not ride on that cache.
    for (const call of calls) expect((await call()).status).toBeLessThan(300);
    const put = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { widget: { allowedOrigins: ['https://shop.example'] } } },
    });
    expect(put.status).toBe(200);
    for (const call of calls) expectProblem(await call(), 403, 'ORIGIN_NOT_ALLOWED');
    const ok = await request('GET', chat('/widget'), {
      widgetKey: t.widgetKey,
      headers: { origin: 'https://shop.example' },
    });
    expect(ok.status).toBe(200);
    await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { widget: { allowedOrigins: null } } },
    });
    expect((await calls[4]!()).status).toBe(200);
  });
});

describe('integration ids are opaque', () => {
  it('an unknown id of any shape is 404, never 400', async () => {
    const t = await newTenant();
    for (const id of ['int_01JUNKNOWN', 'nope', 'x'.repeat(600), '%E2%9C%93', '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b']) {
      expectProblem(await request('DELETE', admin(`/integrations/${id}`), { token: t.ownerToken }), 404, 'NOT_FOUND');
      expectProblem(
        await request('PUT', admin(`/integrations/${id}`), {
          token: t.ownerToken,
          body: {
            type: 'webhook',
            name: 'x',
            config: { url: 'https://hooks.example.com/x' },
            credentials: { secret: 'whsec_abc' },
          },
        }),
        404,
        'NOT_FOUND',
      );
    }
  });
});

describe('POST /live/tickets', () => {
  it('issues a one-time ticket to any member, valid a minute', async () => {
    const t = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    const r = await request('POST', admin('/live/tickets'), { token: viewer.token });
    expect(r.status).toBe(201);
    expect(r.body.ticket).toMatch(/^lt_/);
    const ttl = Date.parse(r.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(30_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
