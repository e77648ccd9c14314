import { describe, expect, it } from 'vitest';
import { admin, chat, expectProblem, newTenant, request, send } from './client.ts';

describe('POST /chat/message', () => {
  it('creates a conversation and answers with the detected intent and entities', async () => {
    const t = await newTenant();
    const r = await send(t, 'where is my order 12345?');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.body.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.message.role).toBe('assistant');
    expect(r.body.message.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.body.metadata.intentDetected).toBe('order_status');
    expect(r.body.metadata.entitiesExtracted).toEqual({ order_id: '12345' });
    expect(r.body.message.content).toContain('12345');
    expect(r.body.metadata.confidence).toBe(r.body.metadata.intentRanking[0].confidence);
    expect(r.body.metadata.intentRanking.length).toBeLessThanOrEqual(3);
  });

  it('keeps both messages of each exchange, oldest first', async () => {
    const t = await newTenant();
    const first = await send(t, 'hello there');
    const id = first.body.conversationId;
    await send(t, 'thanks, bye', id);
    const r = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect(r.status).toBe(200);
    expect(r.body.conversation).toMatchObject({ id, tenantId: t.tenantId, status: 'active' });
    expect(r.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(r.body.messages[0].content).toBe('hello there');
  });

  it('falls back below the confidence threshold but still ranks the candidates', async () => {
    const t = await newTenant();
    const r = await send(t, 'what is the capital of France');
    expect(r.status).toBe(200);
    expect(r.body.metadata.intentDetected).toBe('fallback');
    expect(r.body.metadata.confidence).toBeLessThan(0.5);
    expect(r.body.metadata.intentRanking.length).toBeGreaterThan(0);
  });

  it('rejects a message outside 1 to 2000 characters, counting code points, and stores nothing', async () => {
    const t = await newTenant();
    expectProblem(await send(t, '   '), 400, 'VALIDATION_ERROR');
    const tooLong = await send(t, 'a'.repeat(2001));
    expectProblem(tooLong, 400, 'VALIDATION_ERROR');
    expect(tooLong.body.errors).toEqual([{ path: 'message', message: 'must be at most 2000 characters' }]);
    // 2000 emoji are 4000 UTF-16 units but 2000 characters.
    expect((await send(t, '😀'.repeat(2000))).status).toBe(200);
  });

  it('answers the documented errors: unknown conversation, bad JSON, wrong content type, unknown field, missing key', async () => {
    const t = await newTenant();
    expectProblem(await send(t, 'hi', '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b'), 404, 'NOT_FOUND');
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: t.widgetKey,
        raw: '{"message":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: t.widgetKey,
        raw: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: t.widgetKey,
        raw: '{"message":"hi"}',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectProblem(
      await request('POST', chat('/message'), { widgetKey: t.widgetKey, body: { message: 'hi', extra: 1 } }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(await request('POST', chat('/message'), { body: { message: 'hi' } }), 401, 'UNAUTHORIZED');
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: 'wk_unknownunknownunknownunknown',
        body: { message: 'hi' },
      }),
      401,
      'UNAUTHORIZED',
    );
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: t.widgetKey,
        raw: JSON.stringify({ message: 'a'.repeat(17000) }),
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it("never reaches another tenant's conversation", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const conv = (await send(b, 'hello')).body.conversationId;
    expectProblem(await send(a, 'hello', conv), 404, 'NOT_FOUND');
    expectProblem(await request('GET', chat(`/conversations/${conv}`), { widgetKey: a.widgetKey }), 404, 'NOT_FOUND');
    expect(
      (await request('GET', chat(`/conversations/${conv}`), { widgetKey: b.widgetKey })).body.messages,
    ).toHaveLength(2);
  });

  it('limits a conversation to 30 messages a minute with Retry-After', async () => {
    const t = await newTenant();
    const id = (await send(t, 'hello')).body.conversationId;
    const results = [];
    for (let i = 0; i < 30; i++) results.push((await send(t, `message ${i}`, id)).status);
    // The first counts too: 30 fit in a minute unless the minute turned over mid-way.
    const limited = results.filter((s) => s === 429).length;
    expect(results.filter((s) => s === 200).length + limited).toBe(30);
    if (limited === 0) {
      const r = await send(t, 'one more', id);
      // Either this minute is full, or it began anew during the loop.
      if (r.status === 429) {
        expectProblem(r, 429, 'RATE_LIMITED');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } else {
      expect(limited).toBe(1);
    }
  });
});

describe('POST /chat/escalate', () => {
  it('opens one ticket, returns it again while active, and appends the assistant text', async () => {
    const t = await newTenant();
    const id = (await send(t, 'my parcel arrived damaged')).body.conversationId;
    const first = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, reason: 'damaged item' },
    });
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.ticketId).toMatch(/^tkt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(first.body.ticketNumber).toBe(1);
    expect(first.body.message).toContain('#1');
    expect(first.body.message).not.toContain(first.body.ticketId);
    const again = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, reason: 'again' },
    });
    expect(again.body.ticketId).toBe(first.body.ticketId);
    expect(again.body.ticketNumber).toBe(1);
    const conv = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect(conv.body.conversation.status).toBe('escalated');
    expect(conv.body.messages.filter((m: { content: string }) => m.content.includes('#1'))).toHaveLength(1);
  });

  it('the conversation read carries its latest ticket: null before, number and status after, never the ticket id', async () => {
    const t = await newTenant();
    const id = (await send(t, 'my parcel arrived damaged')).body.conversationId;
    const before = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect(before.status).toBe(200);
    expect(before.body.ticket).toBeNull();
    const esc = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, reason: 'damaged item' },
    });
    const after = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect(after.body.ticket).toEqual({ number: esc.body.ticketNumber, status: 'open' });
    expect(after.text).not.toContain(esc.body.ticketId);
    const moved = await request('PATCH', admin(`/tickets/${esc.body.ticketId}`), {
      token: t.ownerToken,
      body: { status: 'in_progress' },
    });
    expect(moved.status).toBe(200);
    const handled = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect(handled.body.ticket).toEqual({ number: esc.body.ticketNumber, status: 'in_progress' });
    // Another conversation of the tenant has no ticket of its own.
    const other = (await send(t, 'hello')).body.conversationId;
    expect((await request('GET', chat(`/conversations/${other}`), { widgetKey: t.widgetKey })).body.ticket).toBeNull();
  });

  it('escalates through an intent whose action is escalate', async () => {
    const t = await newTenant();
    const r = await send(t, 'I want to talk to a human');
    expect(r.body.metadata.intentDetected).toBe('human_agent');
    expect(r.body.metadata.ticketId).toMatch(/^tkt_/);
    expect(r.body.metadata.ticketNumber).toBe(1);
    expect(r.body.message.content).toContain('#1');
  });

  it('validates its body', async () => {
    const t = await newTenant();
    expectProblem(
      await request('POST', chat('/escalate'), {
        widgetKey: t.widgetKey,
        body: { conversationId: 'nope', reason: 'x' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('POST', chat('/escalate'), {
        widgetKey: t.widgetKey,
        body: { conversationId: '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b', reason: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response, refuses another body with 422', async () => {
    const t = await newTenant();
    const key = `k-${Date.now()}`;
    const a = await send(t, 'hello', undefined, { 'idempotency-key': key });
    const b = await send(t, 'hello', undefined, { 'idempotency-key': key });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expectProblem(await send(t, 'goodbye', undefined, { 'idempotency-key': key }), 422, 'IDEMPOTENCY_KEY_REUSED');
    const conv = await request('GET', chat(`/conversations/${a.body.conversationId}`), { widgetKey: t.widgetKey });
    expect(conv.body.messages).toHaveLength(2);
  });
});
