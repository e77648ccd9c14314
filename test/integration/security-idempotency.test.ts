import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { admin, chat, expectProblem, newTenant, request, send } from './client.ts';
import { handlerExists } from './security/routes.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Idempotency-Key on POST /chat/message and /chat/escalate (docs/API.md, Idempotency).

const TABLE = 'support-assistant-test';
const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: localDatabaseCredentials(TABLE),
});
const ddb = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

const messages = async (t: { widgetKey: string }, id: string) =>
  (await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey })).body.messages as unknown[];

describe('Idempotency-Key', () => {
  it('a replay returns the first response and writes nothing', async () => {
    const t = await newTenant();
    const key = `k-${randomUUID()}`;
    const first = await send(t, 'hello there', undefined, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const id = first.body.conversationId;
    const again = await send(t, 'hello there', undefined, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await messages(t, id)).toHaveLength(2);
    // A follow-up in the same conversation with its own key, replayed.
    const k2 = `k-${randomUUID()}`;
    const f2 = await send(t, 'thanks', id, { 'idempotency-key': k2 });
    const r2 = await send(t, 'thanks', id, { 'idempotency-key': k2 });
    expect(r2.body).toEqual(f2.body);
    expect(await messages(t, id)).toHaveLength(4);
    if (handlerExists('admin/get-stats')) {
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis).toMatchObject({ conversations: 1, messages: 2 });
    }
  });

  it('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const t = await newTenant();
    const key = `k-${randomUUID()}`;
    const first = await send(t, 'hello there', undefined, { 'idempotency-key': key });
    const id = first.body.conversationId;
    expectProblem(
      await send(t, 'something else', undefined, { 'idempotency-key': key }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expectProblem(await send(t, 'hello there', id, { 'idempotency-key': key }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await messages(t, id)).toHaveLength(2);
  });

  it('many concurrent requests with one key: exactly one conversation, the rest replays or 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    const t = await newTenant();
    const key = `k-${randomUUID()}`;
    const all = await Promise.all(
      Array.from({ length: 12 }, () => send(t, 'hello there', undefined, { 'idempotency-key': key })),
    );
    const ok = all.filter((r) => r.status === 200);
    const busy = all.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(all.length);
    for (const r of busy) expectProblem(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.conversationId)).size).toBe(1);
    expect(new Set(ok.map((r) => r.body.message.id)).size).toBe(1);
    if (handlerExists('admin/list-conversations')) {
      const list = await request('GET', admin('/conversations?limit=100'), { token: t.ownerToken });
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0].messageCount).toBe(2);
    }
    // After the first finished, the key replays.
    const later = await send(t, 'hello there', undefined, { 'idempotency-key': key });
    expect(later.body).toEqual(ok[0]!.body);
  });

  it('keys are scoped to the tenant', async () => {
    const [a, b] = await Promise.all([newTenant(), newTenant()]);
    const key = `shared-${randomUUID()}`;
    const ra = await send(a, 'hello there', undefined, { 'idempotency-key': key });
    const rb = await send(b, 'hello there', undefined, { 'idempotency-key': key });
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.body.conversationId).not.toBe(ra.body.conversationId);
    expect(
      (await request('GET', chat(`/conversations/${rb.body.conversationId}`), { widgetKey: b.widgetKey })).status,
    ).toBe(200);
    expectProblem(
      await request('GET', chat(`/conversations/${ra.body.conversationId}`), { widgetKey: b.widgetKey }),
      404,
      'NOT_FOUND',
    );
    // A different body under the same key in B is a different tenant's business: not 422 in A.
    expect((await send(a, 'hello there', undefined, { 'idempotency-key': key })).body).toEqual(ra.body);
  });

  it('the record expires 24 hours after the first request', async () => {
    const t = await newTenant();
    const key = `k-${randomUUID()}`;
    const before = Math.floor(Date.now() / 1000);
    expect((await send(t, 'hello there', undefined, { 'idempotency-key': key })).status).toBe(200);
    const after = Math.floor(Date.now() / 1000);
    const item = (
      await ddb.send(
        new GetCommand({
          TableName: TABLE,
          Key: { pk: `TENANT#${t.tenantId}#IDEM#chat/send-message#${key}`, sk: 'IDEM' },
        }),
      )
    ).Item;
    expect(item).toBeDefined();
    expect(item!.status).toBe('done');
    expect(item!.expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(item!.expiresAt).toBeLessThanOrEqual(after + 24 * 3600 + 1);
  });

  it('a failed first attempt is not kept: the same key may be retried', async () => {
    const t = await newTenant();
    const key = `k-${randomUUID()}`;
    const unknown = randomUUID();
    expectProblem(await send(t, 'hello', unknown, { 'idempotency-key': key }), 404, 'NOT_FOUND');
    expectProblem(await send(t, 'hello', unknown, { 'idempotency-key': key }), 404, 'NOT_FOUND');
    const item = (
      await ddb.send(
        new GetCommand({
          TableName: TABLE,
          Key: { pk: `TENANT#${t.tenantId}#IDEM#chat/send-message#${key}`, sk: 'IDEM' },
        }),
      )
    ).Item;
    expect(item).toBeUndefined();
  });

  it('POST /escalate honours the header the same way', async () => {
    const t = await newTenant();
    const id = (await send(t, 'hello there')).body.conversationId;
    const key = `k-${randomUUID()}`;
    const body = { conversationId: id, reason: 'please call me' };
    const first = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(200);
    const again = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.body).toEqual(first.body);
    expectProblem(
      await request('POST', chat('/escalate'), {
        widgetKey: t.widgetKey,
        body: { ...body, reason: 'other' },
        headers: { 'idempotency-key': key },
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await messages(t, id)).toHaveLength(3);
  });

  it('a bad key is 400 and writes nothing', async () => {
    const t = await newTenant();
    for (const key of ['x'.repeat(129), 'a\tb', 'caf\u00e9', '', ' ']) {
      const r = await send(t, 'hello there', undefined, { 'idempotency-key': key });
      expect.soft(() => expectProblem(r, 400, 'VALIDATION_ERROR'), JSON.stringify(key)).not.toThrow();
    }
    expect((await send(t, 'hello there', undefined, { 'idempotency-key': 'x'.repeat(128) })).status).toBe(200);
    expect((await send(t, 'hello there', undefined, { 'idempotency-key': '~!@#$%^&*() <>' })).status).toBe(200);
    if (handlerExists('admin/list-conversations')) {
      const list = await request('GET', admin('/conversations?limit=100'), { token: t.ownerToken });
      expect(list.body.items).toHaveLength(2);
    }
  });
});
