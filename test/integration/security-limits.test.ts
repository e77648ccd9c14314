import { describe, expect, it } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';
import { admin, chat, expectProblem, newSub, newTenant, request, send, tokenFor } from './client.ts';
import { handlerExists, intentBody, noteMissing } from './security/routes.ts';

// The limits of docs/API.md, at their exact boundaries.

/** A JSON body padded with trailing whitespace (valid JSON) to exactly `bytes` bytes. */
const padded = (obj: unknown, bytes: number) => {
  const s = JSON.stringify(obj);
  const n = bytes - Buffer.byteLength(s);
  if (n < 0) throw new Error('body already over the size');
  return s + ' '.repeat(n);
};
const json = { 'content-type': 'application/json' };

describe('limits', () => {
  it('chat body: 16 KiB accepted, one byte more is 413', async () => {
    const t = await newTenant();
    const atLimit = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      raw: padded({ message: 'hello' }, 16 * 1024),
      headers: json,
    });
    expect(atLimit.status).toBe(200);
    const over = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      raw: padded({ message: 'hello' }, 16 * 1024 + 1),
      headers: json,
    });
    expectProblem(over, 413, 'PAYLOAD_TOO_LARGE');
    // Size is measured in bytes, not characters: 2000 emoji plus padding.
    const emoji = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      raw: padded({ message: '😀'.repeat(2000) }, 16 * 1024 + 1),
      headers: json,
    });
    expectProblem(emoji, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('admin body: 256 KiB accepted, one byte more is 413 (checked after authentication)', async () => {
    const token = await tokenFor(newSub('big'));
    const over = await request('POST', admin('/auth/onboard'), {
      token,
      raw: padded({ tenantName: 'Big' }, 256 * 1024 + 1),
      headers: json,
    });
    expectProblem(over, 413, 'PAYLOAD_TOO_LARGE');
    const atLimit = await request('POST', admin('/auth/onboard'), {
      token,
      raw: padded({ tenantName: 'Big' }, 256 * 1024),
      headers: json,
    });
    expect(atLimit.status).toBe(201);
    // Authentication first: an oversized body without a token is the gateway's 401.
    const anon = await request('POST', admin('/auth/onboard'), {
      raw: padded({ tenantName: 'Big' }, 256 * 1024 + 1),
      headers: json,
    });
    expect(anon.status).toBe(401);
  });

  it('message length: 2000 characters (code points) accepted, 2001 refused', async () => {
    const t = await newTenant();
    expect((await send(t, 'a'.repeat(2000))).status).toBe(200);
    expectProblem(await send(t, '😀'.repeat(2001)), 400, 'VALIDATION_ERROR');
    expectProblem(await send(t, ` ${'a'.repeat(2001)} `), 400, 'VALIDATION_ERROR');
    expect((await send(t, `   ${'b'.repeat(2000)}   `)).status).toBe(200);
  });

  const pageLists = routes.filter(
    (r) =>
      r.auth === 'jwt' &&
      r.method === 'GET' &&
      ['/conversations', '/tickets', '/audit'].some((p) => r.path === `/api/v1/admin${p}`),
  );
  for (const r of pageLists) {
    it(`page size of GET ${r.path}: 1 and 100 accepted; 0, 101, abc, -1, 1.5, empty refused`, async (ctx) => {
      if (!handlerExists(r.handler)) {
        noteMissing('page size', r);
        return ctx.skip();
      }
      const t = await newTenant();
      for (const ok of ['1', '100'])
        expect((await request('GET', `${r.path}?limit=${ok}`, { token: t.ownerToken })).status).toBe(200);
      for (const bad of ['0', '101', 'abc', '-1', '1.5', '', '1e2x', '20abc']) {
        const res = await request('GET', `${r.path}?limit=${encodeURIComponent(bad)}`, { token: t.ownerToken });
        expect.soft(() => expectProblem(res, 400, 'VALIDATION_ERROR'), `limit=${bad}`).not.toThrow();
      }
    });
  }

  it('the 31st message of a conversation within one minute is 429 with Retry-After', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const t = await newTenant();
      const startMinute = new Date().toISOString().slice(0, 16);
      const first = await send(t, 'hello');
      const id = first.body.conversationId;
      const statuses = [first.status];
      for (let i = 1; i < 30; i++) statuses.push((await send(t, `message ${i}`, id)).status);
      const last = await send(t, 'one too many', id);
      // Only conclusive when all 31 fell in one UTC minute; otherwise try again with a fresh conversation.
      if (new Date().toISOString().slice(0, 16) !== startMinute) continue;
      expect(statuses).toEqual(Array(30).fill(200));
      expectProblem(last, 429, 'RATE_LIMITED');
      const retry = Number(last.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      // The refused message was not stored.
      expect(
        (await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey })).body.messages,
      ).toHaveLength(60);
      return;
    }
    throw new Error('could not fit 31 messages into one minute three times');
  });

  it('intents per tenant: the 201st is 409 CONFLICT', async (ctx) => {
    const r = routes.find((x) => x.method === 'POST' && x.path === '/api/v1/admin/intents')!;
    if (!handlerExists(r.handler) || !handlerExists('admin/list-intents')) {
      noteMissing('intent limit', r);
      return ctx.skip();
    }
    const t = await newTenant();
    const have = (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items.length as number;
    const names = Array.from({ length: 200 - have }, (_, i) => `limit_${i}`);
    for (let i = 0; i < names.length; i += 10) {
      const batch = await Promise.all(
        names
          .slice(i, i + 10)
          .map((n) => request('POST', admin('/intents'), { token: t.ownerToken, body: intentBody(n) })),
      );
      expect(batch.map((x) => x.status)).toEqual(batch.map(() => 201));
    }
    expectProblem(
      await request('POST', admin('/intents'), { token: t.ownerToken, body: intentBody('one_too_many') }),
      409,
      'CONFLICT',
    );
    expect((await request('GET', admin('/intents'), { token: t.ownerToken })).body.items).toHaveLength(200);
  }, 60_000);

  it('settings config: over 16 KiB is 400, nothing stored', async (ctx) => {
    const r = routes.find((x) => x.method === 'PUT' && x.path === '/api/v1/admin/settings')!;
    if (!handlerExists(r.handler) || !handlerExists('admin/get-settings')) {
      noteMissing('config size', r);
      return ctx.skip();
    }
    const t = await newTenant();
    const before = await request('GET', admin('/settings'), { token: t.ownerToken });
    const big = { notes: 'x'.repeat(16 * 1024) };
    expectProblem(
      await request('PUT', admin('/settings'), { token: t.ownerToken, body: { config: big } }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await request('GET', admin('/settings'), { token: t.ownerToken })).body).toEqual(before.body);
    // Many small merges may not grow it past the limit either.
    let last = 0;
    for (let i = 0; i < 6; i++)
      last = (
        await request('PUT', admin('/settings'), {
          token: t.ownerToken,
          body: { config: { [`k${i}`]: 'y'.repeat(3000) } },
        })
      ).status;
    expect(last).toBe(400);
    const small = await request('PUT', admin('/settings'), { token: t.ownerToken, body: { config: { notes: 'ok' } } });
    expect(small.status).toBe(200);
  });
});
