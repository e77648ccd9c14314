import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, request, send, type TestTenant } from './client.ts';

const ZORB = {
  name: 'zorblax_voucher',
  trainingPhrases: [
    'how do I redeem a zorblax voucher',
    'zorblax voucher code',
    'redeem my zorblax voucher please',
    'my zorblax voucher does not work',
    'where do I enter the zorblax voucher',
    'zorblax voucher redemption',
  ],
  response: 'Enter your zorblax voucher at checkout.',
};
const post = (t: { ownerToken: string }, body: unknown, token = t.ownerToken) =>
  request('POST', admin('/intents'), { token, body });
const list = (t: TestTenant) => request('GET', admin('/intents'), { token: t.ownerToken });

describe('intents', () => {
  it('creates with defaults, reads, lists with hit counts, replaces and deletes', async () => {
    const t = await newTenant();
    const c = await post(t, { ...ZORB, trainingPhrases: [' padded phrase ', ...ZORB.trainingPhrases] });
    expect(c.status).toBe(201);
    expect(c.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: ZORB.name,
      description: '',
      trainingPhrases: ['padded phrase', ...ZORB.trainingPhrases],
      response: ZORB.response,
      entities: [],
      action: 'reply',
      enabled: true,
      hitCount: 0,
      indexing: true,
      starter: false,
      needsReview: false,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: c.body.createdAt,
    });
    const id = c.body.id;
    // Indexing runs in the background: the flag may already be down.
    expect((await request('GET', admin(`/intents/${id}`), { token: t.ownerToken })).body).toEqual({
      ...c.body,
      indexing: expect.any(Boolean),
    });
    const items = (await list(t)).body.items;
    expect(items.map((i: { name: string }) => i.name)).toEqual(
      expect.arrayContaining(['greeting', 'goodbye', 'human_agent', ZORB.name]),
    );

    // A hit shows in hitCount.
    expect((await send(t, 'hello there')).body.metadata.intentDetected).toBe('greeting');
    const greeting = (await list(t)).body.items.find((i: { name: string }) => i.name === 'greeting');
    expect(greeting.hitCount).toBe(1);
    expect((await request('GET', admin(`/intents/${greeting.id}`), { token: t.ownerToken })).body.hitCount).toBe(1);

    const put = await request('PUT', admin(`/intents/${id}`), {
      token: t.ownerToken,
      body: {
        name: 'zorb_renamed',
        trainingPhrases: ['x y z'],
        response: 'Order {{order}}',
        entities: [{ name: 'order', type: 'regex', pattern: 'ORD-(\\d+)' }],
        action: 'escalate',
        enabled: false,
        description: 'd',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      name: 'zorb_renamed',
      description: 'd',
      action: 'escalate',
      enabled: false,
      createdAt: c.body.createdAt,
    });
    expect(put.body.updatedAt > c.body.updatedAt).toBe(true);
    // The old name is free again after a rename; the new one is taken.
    expect((await post(t, ZORB)).status).toBe(201);
    expectProblem(await post(t, { ...ZORB, name: 'zorb_renamed' }), 409, 'CONFLICT');

    expect((await request('DELETE', admin(`/intents/${id}`), { token: t.ownerToken })).status).toBe(204);
    expectProblem(await request('GET', admin(`/intents/${id}`), { token: t.ownerToken }), 404, 'NOT_FOUND');
    expectProblem(await request('DELETE', admin(`/intents/${id}`), { token: t.ownerToken }), 404, 'NOT_FOUND');
    expectProblem(await request('PUT', admin(`/intents/${id}`), { token: t.ownerToken, body: ZORB }), 404, 'NOT_FOUND');
    // The deleted name can be reused.
    expect((await post(t, { ...ZORB, name: 'zorb_renamed' })).status).toBe(201);

    const audit = await request('GET', admin('/audit?category=intent'), { token: t.ownerToken });
    if (audit.status === 200) {
      expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
        expect.arrayContaining(['intent.created', 'intent.updated', 'intent.deleted']),
      );
    }
  });

  it('the next chat message uses a created, changed or disabled intent', async () => {
    const t = await newTenant();
    const before = await send(t, 'how can I redeem my zorblax voucher');
    expect(before.body.metadata.intentDetected).not.toBe(ZORB.name);
    const c = await post(t, ZORB);
    const r1 = await send(t, 'how can I redeem my zorblax voucher');
    expect(r1.body.metadata.intentDetected).toBe(ZORB.name);
    expect(r1.body.message.content).toBe(ZORB.response);
    await request('PUT', admin(`/intents/${c.body.id}`), {
      token: t.ownerToken,
      body: { ...ZORB, response: 'Changed reply.' },
    });
    expect((await send(t, 'how can I redeem my zorblax voucher')).body.message.content).toBe('Changed reply.');
    await request('PUT', admin(`/intents/${c.body.id}`), { token: t.ownerToken, body: { ...ZORB, enabled: false } });
    expect((await send(t, 'how can I redeem my zorblax voucher')).body.metadata.intentDetected).not.toBe(ZORB.name);
    await request('PUT', admin(`/intents/${c.body.id}`), { token: t.ownerToken, body: ZORB });
    expect((await send(t, 'how can I redeem my zorblax voucher')).body.metadata.intentDetected).toBe(ZORB.name);
    await request('DELETE', admin(`/intents/${c.body.id}`), { token: t.ownerToken });
    expect((await send(t, 'how can I redeem my zorblax voucher')).body.metadata.intentDetected).not.toBe(ZORB.name);
  });

  it('refuses invalid intents with field errors and writes nothing', async () => {
    const t = await newTenant();
    const n0 = (await list(t)).body.items.length;
    const cases: Array<[unknown, string]> = [
      [{ ...ZORB, name: 'Bad-Name' }, 'name'],
      [{ ...ZORB, name: 'a'.repeat(65) }, 'name'],
      [{ ...ZORB, trainingPhrases: [] }, 'trainingPhrases'],
      [{ ...ZORB, trainingPhrases: Array.from({ length: 201 }, (_, i) => `p ${i}`) }, 'trainingPhrases'],
      [{ ...ZORB, trainingPhrases: ['   '] }, 'trainingPhrases.0'],
      [{ ...ZORB, trainingPhrases: ['a'.repeat(501)] }, 'trainingPhrases.0'],
      [{ ...ZORB, response: '' }, 'response'],
      [{ ...ZORB, response: 'a'.repeat(2001) }, 'response'],
      [{ ...ZORB, action: 'explode' }, 'action'],
      [{ ...ZORB, enabled: 'yes' }, 'enabled'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'colour' }] }, 'entities.0.type'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'regex' }] }, 'entities.0.pattern'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'regex', pattern: 'a'.repeat(201) }] }, 'entities.0.pattern'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'regex', pattern: '(a)\\1' }] }, 'entities.0.pattern'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'regex', pattern: '(?=a)b' }] }, 'entities.0.pattern'],
      [{ ...ZORB, entities: [{ name: 'x', type: 'email', pattern: 'a' }] }, 'entities.0.pattern'],
      [{ ...ZORB, unknown: 1 }, 'unknown'],
      [{ trainingPhrases: ['a'], response: 'b' }, 'name'],
    ];
    for (const [body, path] of cases) {
      const r = await post(t, body);
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    expectProblem(await request('GET', admin('/intents/not-a-uuid'), { token: t.ownerToken }), 400, 'VALIDATION_ERROR');
    expectProblem(
      await request('POST', admin('/intents'), {
        token: t.ownerToken,
        raw: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expect((await list(t)).body.items).toHaveLength(n0);
    // A linear-time regex is accepted and extracts.
    expect(
      (
        await post(t, {
          ...ZORB,
          entities: [{ name: 'code', type: 'regex', pattern: 'ZX-(\\d{4})' }],
          response: 'Code {{code}}',
        })
      ).status,
    ).toBe(201);
  });

  it('keeps names unique: a taken name is 409 and concurrent creates make exactly one', async () => {
    const t = await newTenant();
    expectProblem(await post(t, { ...ZORB, name: 'greeting' }), 409, 'CONFLICT');
    const rs = await Promise.all(Array.from({ length: 8 }, () => post(t, ZORB)));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 201)) expectProblem(r, 409, 'CONFLICT');
    expect((await list(t)).body.items.filter((i: { name: string }) => i.name === ZORB.name)).toHaveLength(1);
    // Renaming onto a taken name is refused too.
    const other = await post(t, { ...ZORB, name: 'other_one' });
    expectProblem(
      await request('PUT', admin(`/intents/${other.body.id}`), {
        token: t.ownerToken,
        body: { ...ZORB, name: 'greeting' },
      }),
      409,
      'CONFLICT',
    );
  });

  it('allows at most 200 intents: the 201st is 409', async () => {
    const t = await newTenant();
    const start = (await list(t)).body.items.length;
    for (let i = start; i < 200; i += 10) {
      const batch = Array.from({ length: Math.min(10, 200 - i) }, (_, k) =>
        post(t, { name: `bulk_${i + k}`, trainingPhrases: [`bulk phrase ${i + k}`], response: 'ok' }),
      );
      expect((await Promise.all(batch)).map((r) => r.status).every((s) => s === 201)).toBe(true);
    }
    expect((await list(t)).body.items).toHaveLength(200);
    expectProblem(await post(t, { name: 'one_too_many', trainingPhrases: ['x'], response: 'y' }), 409, 'CONFLICT');
    const victim = (await list(t)).body.items[0];
    expect((await request('DELETE', admin(`/intents/${victim.id}`), { token: t.ownerToken })).status).toBe(204);
    expect((await post(t, { name: 'one_too_many', trainingPhrases: ['x'], response: 'y' })).status).toBe(201);
  }, 60_000);

  it('enforces roles and tenant isolation', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    const agent = await memberToken(t, 'agent');
    const adm = await memberToken(t, 'admin');
    const id = (await post(t, ZORB)).body.id;
    for (const who of [viewer, agent]) {
      expect((await request('GET', admin('/intents'), { token: who.token })).status).toBe(200);
      expect((await request('GET', admin(`/intents/${id}`), { token: who.token })).status).toBe(200);
      expectProblem(await post(t, { ...ZORB, name: 'nope' }, who.token), 403, 'FORBIDDEN');
      expectProblem(await request('PUT', admin(`/intents/${id}`), { token: who.token, body: ZORB }), 403, 'FORBIDDEN');
      expectProblem(await request('DELETE', admin(`/intents/${id}`), { token: who.token }), 403, 'FORBIDDEN');
    }
    expect(
      (await request('PUT', admin(`/intents/${id}`), { token: adm.token, body: { ...ZORB, description: 'by admin' } }))
        .status,
    ).toBe(200);
    expectProblem(await request('GET', admin(`/intents/${id}`), { token: other.ownerToken }), 404, 'NOT_FOUND');
    expectProblem(
      await request('PUT', admin(`/intents/${id}`), { token: other.ownerToken, body: { ...ZORB, name: 'stolen' } }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request('DELETE', admin(`/intents/${id}`), { token: other.ownerToken }), 404, 'NOT_FOUND');
    const mine = await request('GET', admin(`/intents/${id}`), { token: t.ownerToken });
    expect(mine.body).toMatchObject({ name: ZORB.name, description: 'by admin' });
  });
});
