import { describe, expect, it } from 'vitest';
import {
  admin,
  chat,
  expectProblem,
  memberToken,
  newSub,
  newTenant,
  newTicket,
  request,
  send,
  tokenFor,
  type TestTenant,
} from './client.ts';

const list = (t: TestTenant, qs = '', token = t.ownerToken) => request('GET', admin(`/conversations${qs}`), { token });
const detail = (t: TestTenant, id: string, token = t.ownerToken) =>
  request('GET', admin(`/conversations/${id}`), { token });
const ids = (r: { body: { items: Array<{ id: string }> } }) => r.body.items.map((i) => i.id);

describe('GET /conversations', () => {
  it('lists newest first with the summary fields, and by status', async () => {
    const t = await newTenant();
    const first = (await send(t, 'hello')).body.conversationId as string;
    await send(t, 'thanks a lot', first);
    const second = await newTicket(t);
    const r = await list(t);
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual([second.conversationId, first]);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.items[1]).toEqual({
      id: first,
      title: expect.stringMatching(/^Visitor \d{1,4}$/),
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      messageCount: 4,
      lastMessagePreview: 'thanks a lot',
      lastIntent: 'thanks',
      visitor: null,
      labels: [],
      lastCustomerMessageAt: expect.any(String),
      channel: 'widget',
      subject: null,
      rating: null,
      ticket: null,
      stage: null,
    });
    expect(r.body.items[1].lastCustomerMessageAt > r.body.items[1].createdAt).toBe(true);
    expect(r.body.items[1].updatedAt >= r.body.items[1].createdAt).toBe(true);
    expect(ids(await list(t, '?status=active'))).toEqual([first]);
    expect(ids(await list(t, '?status=escalated'))).toEqual([second.conversationId]);
    expect(ids(await list(t, '?status=closed'))).toEqual([]);
  });

  it('orders the inbox by the latest customer message: an agent reply or a ticket change moves nothing', async () => {
    const t = await newTenant();
    const older = (await send(t, 'hello')).body.conversationId as string;
    const newer = await newTicket(t);
    expect(ids(await list(t))).toEqual([newer.conversationId, older]);
    // The customer of the older conversation writes again: it comes first, in all and by status.
    await send(t, 'any news?', older);
    expect(ids(await list(t))).toEqual([older, newer.conversationId]);
    // The team answers and works on the other one: the order stays.
    const reply = await request('POST', admin(`/conversations/${newer.conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'On it!' },
    });
    expect(reply.status).toBe(201);
    expect(
      (await request('PATCH', admin(`/tickets/${newer.ticketId}`), { token: t.ownerToken, body: { priority: 'high' } }))
        .status,
    ).toBe(200);
    const after = await list(t);
    expect(ids(after)).toEqual([older, newer.conversationId]);
    expect(after.body.items[1].updatedAt > after.body.items[1].lastCustomerMessageAt).toBe(true);
    // Its customer answers: it comes first again, in the status list too.
    await send(t, 'thanks, the order is 55123', newer.conversationId);
    expect(ids(await list(t))).toEqual([newer.conversationId, older]);
    expect(ids(await list(t, '?status=escalated'))).toEqual([newer.conversationId]);
    await send(t, 'hello again', older);
    expect(ids(await list(t, '?limit=1'))).toEqual([older]);
  });

  it('shows where each conversation stands (its latest ticket, number, status, assignee) and filters by what it needs', async () => {
    const t = await newTenant();
    const patch = (id: string, body: unknown) =>
      request('PATCH', admin(`/tickets/${id}`), { token: t.ownerToken, body });
    const reply = (id: string) =>
      request('POST', admin(`/conversations/${id}/messages`), { token: t.ownerToken, body: { content: 'On it' } });
    const bot = (await send(t, 'hello')).body.conversationId as string;
    const a = await newTicket(t);
    const b = await newTicket(t);
    const item = async (id: string) => (await list(t)).body.items.find((c: { id: string }) => c.id === id);
    const stage = async (s: string) => ids(await list(t, `?stage=${s}`));
    expect((await item(bot)).ticket).toBeNull();
    expect(await item(a.conversationId)).toMatchObject({
      stage: 'waiting_for_us',
      ticket: { id: a.ticketId, number: 1, status: 'open', assigneeId: null },
    });
    expect(await stage('waiting_for_us')).toEqual([b.conversationId, a.conversationId]);

    // The team answers: the customer's turn. The customer writes again: the team's turn.
    expect((await reply(a.conversationId)).status).toBe(201);
    expect(await item(a.conversationId)).toMatchObject({
      stage: 'waiting_for_customer',
      ticket: { status: 'in_progress' },
    });
    expect(await stage('waiting_for_customer')).toEqual([a.conversationId]);
    await send(t, 'still broken', a.conversationId);
    expect((await item(a.conversationId)).stage).toBe('waiting_for_us');
    // Waiting on the customer by status; assigned; a resolved ticket is done (no longer "waiting"), though the conversation stays escalated.
    expect((await patch(a.ticketId, { status: 'waiting', assigneeId: t.ownerSub })).status).toBe(200);
    expect(await item(a.conversationId)).toMatchObject({
      stage: 'waiting_for_customer',
      ticket: { status: 'waiting', assigneeId: t.ownerSub },
    });
    expect((await patch(b.ticketId, { status: 'resolved' })).status).toBe(200);
    expect(await item(b.conversationId)).toMatchObject({
      status: 'escalated',
      stage: 'done',
      ticket: { number: 2, status: 'resolved' },
    });
    expect(await stage('waiting_for_us')).toEqual([]);
    expect(await stage('waiting_for_customer')).toEqual([a.conversationId]);
    expect(await stage('done')).toEqual([b.conversationId]);
    expect((await patch(a.ticketId, { assigneeId: null })).status).toBe(200);
    expect((await item(a.conversationId)).ticket.assigneeId).toBeNull();
    // The detail and the ticket's page say the same.
    expect((await detail(t, b.conversationId)).body.conversation).toMatchObject({
      stage: 'done',
      ticket: { id: b.ticketId, status: 'resolved' },
    });
    expectProblem(await list(t, '?stage=waiting'), 400, 'VALIDATION_ERROR');
  });

  it('pages with a signed cursor bound to tenant and filters', async () => {
    const t = await newTenant();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.unshift((await send(t, `hello ${i}`)).body.conversationId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: Awaited<ReturnType<typeof list>> = await list(
        t,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...ids(r));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made);

    const c = (await list(t, '?limit=2')).body.nextCursor as string;
    expect((await list(t, `?limit=2&cursor=${encodeURIComponent(c)}`)).status).toBe(200);
    expectProblem(await list(t, `?limit=2&status=active&cursor=${encodeURIComponent(c)}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(await newTenant(), `?cursor=${encodeURIComponent(c)}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(t, `?cursor=${encodeURIComponent(`${c}x`)}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(t, `?cursor=${encodeURIComponent(`x${c}`)}`), 400, 'INVALID_CURSOR');
    expectProblem(
      await request('GET', admin(`/tickets?cursor=${encodeURIComponent(c)}`), { token: t.ownerToken }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('rejects a bad status, limit or unknown query parameter', async () => {
    const t = await newTenant();
    expectProblem(await list(t, '?status=open'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?limit=101'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?limit=1.5'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?q=hello'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?cursor='), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /conversations/{id}', () => {
  it('returns the conversation, every message with assistant metadata, and its tickets', async () => {
    const t = await newTenant();
    const { conversationId, ticketId } = await newTicket(t, 'broken');
    const r = await detail(t, conversationId);
    expect(r.status).toBe(200);
    expect(r.body.conversation).toMatchObject({
      id: conversationId,
      status: 'escalated',
      messageCount: 3,
      latestTicketId: ticketId,
    });
    const [user, bot, escalation] = r.body.messages;
    expect(user).toEqual({ id: expect.any(String), role: 'user', content: 'hello', createdAt: expect.any(String) });
    expect(bot.role).toBe('assistant');
    expect(bot.metadata).toMatchObject({
      intentDetected: 'greeting',
      confidence: expect.any(Number),
      entitiesExtracted: {},
    });
    expect(escalation).toMatchObject({ role: 'assistant' });
    expect(escalation.content).toContain('#1');
    expect(r.body.tickets).toEqual([
      {
        id: ticketId,
        number: 1,
        conversationId,
        status: 'open',
        priority: 'medium',
        reason: 'broken',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        assigneeId: null,
        firstResponseAt: null,
        resolvedAt: null,
      },
    ]);
  });

  it("carries the customer's rating and comment, on the conversation and on its ticket", async () => {
    const t = await newTenant();
    const { conversationId, ticketId } = await newTicket(t, 'wrong answer');
    expect((await detail(t, conversationId)).body.conversation.rating).toBeNull();
    const rate = (body: unknown) =>
      request('POST', chat(`/conversations/${conversationId}/rating`), { widgetKey: t.widgetKey, body });
    expect((await rate({ score: 2, comment: 'the bot told me 30 days, your site says 14' })).status).toBe(200);
    const r = await detail(t, conversationId);
    expect(r.body.conversation.rating).toEqual({
      score: 2,
      comment: 'the bot told me 30 days, your site says 14',
      createdAt: expect.any(String),
    });
    const ticket = await request('GET', admin(`/tickets/${ticketId}`), { token: t.ownerToken });
    expect(ticket.body.conversation.rating).toMatchObject({
      score: 2,
      comment: 'the bot told me 30 days, your site says 14',
    });
    // A later rating replaces it, in the list too.
    expect((await rate({ score: 4 })).status).toBe(200);
    expect((await detail(t, conversationId)).body.conversation.rating).toMatchObject({ score: 4, comment: null });
    expect((await list(t)).body.items[0].rating).toMatchObject({ score: 4, comment: null });
  });

  it('a conversation without tickets has an empty list', async () => {
    const t = await newTenant();
    const id = (await send(t, 'hello')).body.conversationId;
    const r = await detail(t, id);
    expect(r.body.tickets).toEqual([]);
    expect(r.body.messages).toHaveLength(2);
    expect(r.body.conversation.latestTicketId).toBeNull();
  });

  it("answers 404 for an unknown id or another tenant's, 400 for a bad id", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const id = (await send(b, 'hello')).body.conversationId;
    expectProblem(await detail(a, id), 404, 'NOT_FOUND');
    expectProblem(await detail(a, '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b'), 404, 'NOT_FOUND');
    expectProblem(await detail(a, 'not-a-uuid'), 400, 'VALIDATION_ERROR');
    expect(ids(await list(a))).toEqual([]);
    expect((await detail(b, id)).status).toBe(200);
  });
});

describe('conversation roles', () => {
  it('a viewer reads; a user without a tenant is NOT_ONBOARDED', async () => {
    const t = await newTenant();
    const id = (await send(t, 'hello')).body.conversationId;
    const viewer = await memberToken(t, 'viewer');
    expect(ids(await list(t, '', viewer.token))).toEqual([id]);
    expect((await detail(t, id, viewer.token)).status).toBe(200);
    const stranger = await tokenFor(newSub('stranger'));
    expectProblem(await list(t, '', stranger), 403, 'NOT_ONBOARDED');
    expectProblem(await detail(t, id, stranger), 403, 'NOT_ONBOARDED');
    expect((await request('GET', admin('/conversations'))).status).toBe(401);
  });
});
