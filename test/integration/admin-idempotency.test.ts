import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newSub, newTenant, request, tokenFor } from './client.ts';

// Idempotency-Key on the admin routes that create something (docs/API.md, Idempotency): a double
// click or a retry makes one thing and answers every copy with the first response, secrets included.

describe('Idempotency-Key on admin creates', () => {
  it('onboarding twice with one key makes one tenant and shows its widget key both times', async () => {
    const token = await tokenFor(newSub('idem-onboard'), 'idem@example.com');
    const key = randomUUID();
    const body = { tenantName: 'Twice Shop' };
    const [a, b] = await Promise.all(
      [0, 1].map(() => request('POST', admin('/auth/onboard'), { token, body, headers: { 'idempotency-key': key } })),
    );
    const statuses = [a!.status, b!.status].sort();
    // The second copy arrived while the first ran (409 in progress) or after it (the same 201).
    expect(statuses[0]).toBe(201);
    const first = a!.status === 201 ? a! : b!;
    const again = await request('POST', admin('/auth/onboard'), { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.body.widgetKey).toBe(first.body.widgetKey);
    expect(again.body.tenant.id).toBe(first.body.tenant.id);
    // A new key is a new action: the user has a team already.
    expectProblem(
      await request('POST', admin('/auth/onboard'), { token, body, headers: { 'idempotency-key': randomUUID() } }),
      409,
      'ALREADY_ONBOARDED',
    );
  });

  it('a webhook created twice with one key is one integration, and the replay carries the same one-time secret', async () => {
    const t = await newTenant();
    const key = randomUUID();
    const body = {
      type: 'webhook',
      name: 'Orders',
      config: { url: 'https://orders.example.com/hook' },
      credentials: {},
    };
    const first = await request('POST', admin('/integrations'), {
      token: t.ownerToken,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const again = await request('POST', admin('/integrations'), {
      token: t.ownerToken,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(first.body.credentials.secret).toMatch(/^whsec_/);
    expect((await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items).toHaveLength(1);
    // Another body with the same key is refused, and writes nothing.
    expectProblem(
      await request('POST', admin('/integrations'), {
        token: t.ownerToken,
        body: { ...body, name: 'Other' },
        headers: { 'idempotency-key': key },
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('an intent, an article, an invitation and an agent reply sent twice with one key are written once', async () => {
    const t = await newTenant();
    const h = { 'idempotency-key': '' };
    const twice = async (path: string, body: unknown) => {
      h['idempotency-key'] = randomUUID();
      const r1 = await request('POST', admin(path), { token: t.ownerToken, body, headers: h });
      const r2 = await request('POST', admin(path), { token: t.ownerToken, body, headers: h });
      expect(r1.status).toBeLessThan(300);
      expect(r2.status).toBe(r1.status);
      expect(r2.body).toEqual(r1.body);
      return r1.body;
    };
    await twice('/intents', { name: 'gift_wrap', trainingPhrases: ['can you gift wrap it'], response: 'Yes.' });
    expect(
      ((await request('GET', admin('/intents'), { token: t.ownerToken })).body.items as { name: string }[]).filter(
        (i) => i.name === 'gift_wrap',
      ),
    ).toHaveLength(1);
    await twice('/articles', { title: 'Gift wrapping', body: 'We wrap gifts.' });
    expect((await request('GET', admin('/articles'), { token: t.ownerToken })).body.items).toHaveLength(1);
    await twice('/members', { email: 'twice@example.com', role: 'agent' });
    expect(
      ((await request('GET', admin('/members'), { token: t.ownerToken })).body.items as { email: string }[]).filter(
        (m) => m.email === 'twice@example.com',
      ),
    ).toHaveLength(1);
    const chat = await request('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hello' } });
    const id = chat.body.conversationId as string;
    await twice(`/conversations/${id}/messages`, { content: 'Hello from a person.' });
    const conv = await request('GET', admin(`/conversations/${id}`), { token: t.ownerToken });
    expect((conv.body.messages as { role: string }[]).filter((m) => m.role === 'agent')).toHaveLength(1);
  });

  it("a key is the member's own: another member sending it makes their own request", async () => {
    const t = await newTenant();
    const other = await memberToken(t, 'admin');
    const key = randomUUID();
    const body = {
      type: 'webhook',
      name: 'Orders',
      config: { url: 'https://orders.example.com/hook' },
      credentials: {},
    };
    const mine = await request('POST', admin('/integrations'), {
      token: t.ownerToken,
      body,
      headers: { 'idempotency-key': key },
    });
    const theirs = await request('POST', admin('/integrations'), {
      token: other.token,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.credentials.secret).not.toBe(mine.body.credentials.secret);
  });
});
