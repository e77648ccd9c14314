import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, request, send, type TestTenant } from './client.ts';

// The team's daily tools (docs/API.md, Saved replies and labels): saved replies with their limits,
// roles and audit; labels on conversations, the inbox filter and the counts.

const reply = (over: Record<string, unknown> = {}) => ({
  shortcut: 'refund',
  title: 'Refund on its way',
  body: 'Hi {{visitor.name}}, {{agent.name}} here: ticket #{{ticket.number}} is refunded.',
  ...over,
});
const create = (t: TestTenant, body: unknown, token = t.ownerToken) =>
  request('POST', admin('/saved-replies'), { token, body });
const list = (t: TestTenant, token = t.ownerToken) => request('GET', admin('/saved-replies'), { token });
const audit = async (t: TestTenant) =>
  (await request('GET', admin('/audit?category=settings&limit=100'), { token: t.ownerToken })).body.items.filter(
    (e: { target: { type: string } }) => e.target.type === 'saved_reply',
  );

describe('saved replies', () => {
  it('creates, lists by shortcut, replaces and deletes, each audited', async () => {
    const t = await newTenant();
    const a = await create(t, reply({ title: '  Refund on its way ' }));
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      shortcut: 'refund',
      title: 'Refund on its way',
      body: reply().body,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: a.body.createdAt,
    });
    const b = await create(t, reply({ shortcut: 'hello', title: 'Greeting', body: 'Hello!' }));
    expect((await list(t)).body.items.map((r: { shortcut: string }) => r.shortcut)).toEqual(['hello', 'refund']);

    const put = await request('PUT', admin(`/saved-replies/${a.body.id}`), {
      token: t.ownerToken,
      body: reply({ shortcut: 'refund-done', body: 'Done.' }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: a.body.id,
      shortcut: 'refund-done',
      body: 'Done.',
      createdAt: a.body.createdAt,
    });
    expect(put.body.updatedAt > a.body.updatedAt).toBe(true);
    // The old shortcut is free again, the new one taken.
    expect((await create(t, reply())).status).toBe(201);
    expectProblem(await create(t, reply({ shortcut: 'refund-done' })), 409, 'CONFLICT');
    expectProblem(
      await request('PUT', admin(`/saved-replies/${b.body.id}`), {
        token: t.ownerToken,
        body: reply({ shortcut: 'refund-done' }),
      }),
      409,
      'CONFLICT',
    );

    expect((await request('DELETE', admin(`/saved-replies/${a.body.id}`), { token: t.ownerToken })).status).toBe(204);
    expectProblem(
      await request('DELETE', admin(`/saved-replies/${a.body.id}`), { token: t.ownerToken }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await request('PUT', admin(`/saved-replies/${a.body.id}`), { token: t.ownerToken, body: reply() }),
      404,
      'NOT_FOUND',
    );
    expect((await list(t)).body.items.map((r: { shortcut: string }) => r.shortcut)).toEqual(['hello', 'refund']);
    // The deleted reply's shortcut can be used again.
    expect((await create(t, reply({ shortcut: 'refund-done' }))).status).toBe(201);

    const entries = await audit(t);
    expect(entries.map((e: { action: string }) => e.action).sort()).toEqual([
      'saved_reply.created',
      'saved_reply.created',
      'saved_reply.created',
      'saved_reply.created',
      'saved_reply.deleted',
      'saved_reply.updated',
    ]);
    const updated = entries.find((e: { action: string }) => e.action === 'saved_reply.updated');
    expect(updated).toMatchObject({
      category: 'settings',
      actor: { type: 'user', id: t.ownerSub },
      target: { type: 'saved_reply', id: a.body.id },
      changes: { shortcut: { from: 'refund', to: 'refund-done' }, body: { from: reply().body, to: 'Done.' } },
    });
    expect(updated.changes.title).toBeUndefined();
  });

  it('is safe to send twice with the same Idempotency-Key', async () => {
    const t = await newTenant();
    const headers = { 'idempotency-key': 'save-refund-1' };
    const [a, b] = [
      await request('POST', admin('/saved-replies'), { token: t.ownerToken, body: reply(), headers }),
      await request('POST', admin('/saved-replies'), { token: t.ownerToken, body: reply(), headers }),
    ];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect((await list(t)).body.items).toHaveLength(1);
    expect(await audit(t)).toHaveLength(1);
  });

  it('refuses bad input with field messages and writes nothing', async () => {
    const t = await newTenant();
    const bad = async (body: unknown, path: string, message: RegExp) => {
      const r = await create(t, body);
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]),
      );
    };
    await bad(reply({ shortcut: 'Refund' }), 'shortcut', /lowercase letters, digits or hyphens/);
    await bad(reply({ shortcut: '' }), 'shortcut', /lowercase/);
    await bad(reply({ shortcut: 'a'.repeat(33) }), 'shortcut', /1 to 32/);
    await bad(reply({ shortcut: 'with space' }), 'shortcut', /lowercase/);
    await bad(reply({ body: '' }), 'body', /must not be empty/);
    await bad(reply({ body: 'x'.repeat(5001) }), 'body', /at most 5000/);
    await bad(reply({ body: 'Hi {{visitor.email}}' }), 'body', /unknown placeholder \{\{visitor\.email\}\}/);
    await bad(reply({ body: 'Hi {{ visitor.name }}' }), 'body', /unknown placeholder/);
    await bad(reply({ title: '' }), 'title', /must not be empty/);
    await bad(reply({ title: 'a\u202Eb' }), 'title', /bidirectional/);
    await bad({ ...reply(), extra: 1 }, 'extra', /unknown field/);
    // The longest body, with each placeholder, is taken.
    expect(
      (await create(t, reply({ body: `{{visitor.name}}{{agent.name}}{{ticket.number}}${'x'.repeat(5000 - 47)}` })))
        .status,
    ).toBe(201);
    expect((await list(t)).body.items).toHaveLength(1);
    expect(await audit(t)).toHaveLength(1);
  });

  it('agents read them, only admins write them, viewers see none', async () => {
    const t = await newTenant();
    const made = await create(t, reply());
    const [viewer, agent, adminMember] = await Promise.all([
      memberToken(t, 'viewer'),
      memberToken(t, 'agent'),
      memberToken(t, 'admin'),
    ]);
    expectProblem(await list(t, viewer.token), 403, 'FORBIDDEN');
    expect((await list(t, agent.token)).body.items).toHaveLength(1);
    expectProblem(await create(t, reply({ shortcut: 'x' }), agent.token), 403, 'FORBIDDEN');
    expectProblem(
      await request('PUT', admin(`/saved-replies/${made.body.id}`), { token: agent.token, body: reply() }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await request('DELETE', admin(`/saved-replies/${made.body.id}`), { token: agent.token }),
      403,
      'FORBIDDEN',
    );
    // Role is checked before the body: a forbidden caller learns nothing of the schema.
    expectProblem(await create(t, { nonsense: true }, viewer.token), 403, 'FORBIDDEN');
    expect((await create(t, reply({ shortcut: 'by-admin' }), adminMember.token)).status).toBe(201);
    expect((await list(t, agent.token)).body.items).toHaveLength(2);
  });

  it('keeps at most 500 per tenant, even when created at once; a delete makes room', async () => {
    const t = await newTenant();
    const make = (i: number) => create(t, reply({ shortcut: `r-${i}`, title: `Reply ${i}`, body: `Body ${i}` }));
    const statuses: number[] = [];
    // Ten at a time: each one's transaction moves the same tally on the tenant item.
    for (let i = 0; i < 505; i += 10) {
      statuses.push(
        ...(await Promise.all(Array.from({ length: Math.min(10, 505 - i) }, (_, j) => make(i + j)))).map(
          (r) => r.status,
        ),
      );
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(500);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const all = (await list(t)).body.items;
    expect(all).toHaveLength(500);
    const full = await make(999);
    expectProblem(full, 409, 'CONFLICT');
    expect(full.body.detail).toMatch(/at most 500 saved replies/);
    expect((await request('DELETE', admin(`/saved-replies/${all[0].id}`), { token: t.ownerToken })).status).toBe(204);
    expect((await make(999)).status).toBe(201);
  }, 120_000);
});

const patch = (t: TestTenant, id: string, body: unknown, token = t.ownerToken) =>
  request('PATCH', admin(`/conversations/${id}`), { token, body });
const labels = async (t: TestTenant) => (await request('GET', admin('/labels'), { token: t.ownerToken })).body.items;
const byLabel = async (t: TestTenant, label: string, extra = '') =>
  (await request('GET', admin(`/conversations?label=${encodeURIComponent(label)}${extra}`), { token: t.ownerToken }))
    .body;

describe('labels', () => {
  it('labels conversations, filters the inbox by label and counts each label', async () => {
    const t = await newTenant();
    const [c1, c2, c3] = (await Promise.all(
      ['hello', 'hi there', 'good morning'].map(async (m) => (await send(t, m)).body.conversationId),
    )) as [string, string, string];
    const p1 = await patch(t, c1, { labels: ['VIP', ' Billing '] });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ id: c1, labels: ['VIP', 'Billing'] });
    // A label already used keeps its first spelling; the same label twice counts once.
    expect((await patch(t, c2, { labels: ['vip', 'ＶＩＰ', 'Refund'] })).body.labels).toEqual(['VIP', 'Refund']);
    expect((await patch(t, c3, { labels: ['billing'] })).body.labels).toEqual(['Billing']);
    expect(await labels(t)).toEqual([
      { name: 'Billing', count: 2 },
      { name: 'VIP', count: 2 },
      { name: 'Refund', count: 1 },
    ]);

    const vip = (await byLabel(t, 'vip')).items;
    expect(vip).toHaveLength(2);
    // Newest first, as the unfiltered list.
    const all = (await request('GET', admin('/conversations'), { token: t.ownerToken })).body.items.map(
      (c: { id: string }) => c.id,
    );
    expect(vip.map((c: { id: string }) => c.id)).toEqual(all.filter((id: string) => id === c1 || id === c2));
    expect(vip.every((c: { labels: string[] }) => c.labels.includes('VIP'))).toBe(true);
    expect((await byLabel(t, 'nobody uses this')).items).toEqual([]);

    // Pages of a label's list, the cursor bound to the label.
    const first = await byLabel(t, 'VIP', '&limit=1');
    expect(first.items).toHaveLength(1);
    const second = await byLabel(t, 'VIP', `&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(second.items.map((c: { id: string }) => c.id)).not.toEqual(first.items.map((c: { id: string }) => c.id));
    expect(second.nextCursor).toBeNull();
    expectProblem(
      await request(
        'GET',
        admin(`/conversations?label=Billing&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
        { token: t.ownerToken },
      ),
      400,
      'INVALID_CURSOR',
    );
    expectProblem(
      await request('GET', admin(`/conversations?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`), {
        token: t.ownerToken,
      }),
      400,
      'INVALID_CURSOR',
    );
    // With a status too.
    expect((await byLabel(t, 'VIP', '&status=closed')).items).toEqual([]);
    expect((await byLabel(t, 'VIP', '&status=active')).items).toHaveLength(2);

    // Taking labels off moves the counts; a label on no conversation leaves the list.
    expect((await patch(t, c2, { labels: [] })).body.labels).toEqual([]);
    expect(await labels(t)).toEqual([
      { name: 'Billing', count: 2 },
      { name: 'VIP', count: 1 },
    ]);
    expect((await byLabel(t, 'Refund')).items).toEqual([]);
    expect((await byLabel(t, 'VIP')).items.map((c: { id: string }) => c.id)).toEqual([c1]);
    // The same labels again change nothing; an empty patch neither.
    expect((await patch(t, c1, { labels: ['vip', 'billing'] })).body.labels).toEqual(['VIP', 'Billing']);
    expect((await patch(t, c1, {})).body.labels).toEqual(['VIP', 'Billing']);
    expect(await labels(t)).toEqual([
      { name: 'Billing', count: 2 },
      { name: 'VIP', count: 1 },
    ]);
    // The conversation's detail and list carry them.
    expect(
      (await request('GET', admin(`/conversations/${c1}`), { token: t.ownerToken })).body.conversation.labels,
    ).toEqual(['VIP', 'Billing']);
  });

  it('keeps the counts right when two agents label at once', async () => {
    const t = await newTenant();
    const c = (await send(t, 'hello')).body.conversationId as string;
    const rs = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((l) => patch(t, c, { labels: [l, 'shared'] })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const final = (await request('GET', admin(`/conversations/${c}`), { token: t.ownerToken })).body.conversation
      .labels;
    expect(final).toHaveLength(2);
    const counts = await labels(t);
    expect(counts).toHaveLength(2);
    expect(counts.every((l: { count: number }) => l.count === 1)).toBe(true);
    expect(counts.map((l: { name: string }) => l.name).sort()).toEqual([...final].sort());
  });

  it('checks limits, names and roles, and writes nothing on a refusal', async () => {
    const t = await newTenant();
    const c = (await send(t, 'hello')).body.conversationId as string;
    const bad = async (body: unknown, message: RegExp) => {
      const r = await patch(t, c, body);
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(r.body.errors)).toMatch(message);
    };
    await bad({ labels: Array.from({ length: 11 }, (_, i) => `l${i}`) }, /at most 10 labels/);
    await bad({ labels: ['x'.repeat(33)] }, /at most 32 characters/);
    await bad({ labels: [''] }, /must not be empty/);
    await bad({ labels: ['\u200B'] }, /visible characters/);
    await bad({ labels: ['a\u0007'] }, /control characters/);
    await bad({ labels: 'VIP' }, /.+/);
    await bad({ status: 'closed' }, /.+/);
    expect((await patch(t, c, { labels: Array.from({ length: 10 }, (_, i) => `l${i}`) })).status).toBe(200);
    expectProblem(
      await request('GET', admin(`/conversations?label=${'x'.repeat(33)}`), { token: t.ownerToken }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(await patch(t, '0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b', { labels: ['x'] }), 404, 'NOT_FOUND');

    const [viewer, agent] = await Promise.all([memberToken(t, 'viewer'), memberToken(t, 'agent')]);
    expectProblem(await patch(t, c, { labels: ['x'] }, viewer.token), 403, 'FORBIDDEN');
    expect((await patch(t, c, { labels: ['by agent'] }, agent.token)).body.labels).toEqual(['by agent']);
    expect((await request('GET', admin('/labels'), { token: viewer.token })).body.items).toEqual([
      { name: 'by agent', count: 1 },
    ]);
    expect(
      (await request('GET', admin('/conversations?label=by%20agent'), { token: viewer.token })).body.items,
    ).toHaveLength(1);
  });
});
