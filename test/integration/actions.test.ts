import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { fakeClock, useRealClock } from '../fixtures/clock.ts';
import { chatOn, webhookFile } from './webhooks/harness.ts';
import { eventually } from '../support/eventually.ts';

// Actions (docs/ACTIONS.md) end to end through the local runtime's HTTP server: a real receiver
// on loopback checks the signature, answers as a team's endpoint would (or would not), and the
// chat's answer, metadata and the integration's log are read back through the API.

const w = webhookFile();
afterEach(() => {
  useRealClock();
  process.env.ALLOW_LOOPBACK_WEBHOOKS = '1';
});

interface Got {
  headers: IncomingHttpHeaders;
  body: string;
}
/** What the endpoint does with the n-th call: a status, a body (an object is sent as JSON), a delay; or never answer. */
type Answer = { status?: number; body?: unknown; delayMs?: number; headers?: Record<string, string> } | 'hang';

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function endpoint(answer: (n: number, got: Got) => Answer) {
  const got: Got[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const g = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const a = answer(got.push(g) - 1, g);
      if (a === 'hang') return;
      const send = () => {
        const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {});
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
        res.end(text);
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/orders`, got };
}

const SKU_INTENT = {
  name: 'stock_check',
  trainingPhrases: [
    'is SKU-1001 in stock',
    'do you have SKU-2002 in stock',
    'stock level of SKU-3003',
    'is SKU-4004 available to buy',
  ],
  response: 'SKU {{sku}}: {{data.stock.count}} in stock, {{data.stock.where}}.',
  entities: [{ name: 'sku', type: 'regex', pattern: '\\bSKU-(\\d{4})\\b', required: true }],
};
const ASK = 'is SKU-1234 in stock';

async function action(t: { token: string }, url: string, config: Record<string, unknown> = {}) {
  const r = await w.a.call('POST', '/integrations', t.token, {
    type: 'action',
    name: 'Stock',
    config: { url, ...config },
  });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id as string, secret: r.body.credentials.secret as string, body: r.body };
}

async function callingIntent(t: { token: string }, integrationId: string, extra: Record<string, unknown> = {}) {
  const r = await w.a.call('POST', '/intents', t.token, { ...SKU_INTENT, action: 'call', integrationId, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** A tenant whose stock_check asks `answer`'s endpoint. */
async function shop(
  answer: (n: number, got: Got) => Answer,
  config: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  const t = await w.a.tenant();
  const ep = await endpoint(answer);
  const act = await action(t, ep.url, config);
  await callingIntent(t, act.id, extra);
  const ask = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    chatOn(w.rt, t.widgetKey, '/message', { message: ASK, ...body }, headers);
  return { t, ep, act, ask };
}

describe('action integrations and calling intents', () => {
  it('generates the signing secret, shows it once and masked after, and fills in the default timeout', async () => {
    const t = await w.a.tenant();
    const a = await action(t, 'https://shop.example.com/orders');
    expect(a.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a.body.config).toEqual({ url: 'https://shop.example.com/orders', timeoutMs: 3000 });
    const list = await w.a.call('GET', '/integrations', t.token);
    expect(list.body.items[0]).toMatchObject({ type: 'action', credentials: { secret: `****${a.secret.slice(-4)}` } });
    expect(list.text).not.toContain(a.secret.slice(6, 30));
  });

  it('refuses URLs that break the webhook rules, bad timeouts and unknown settings with 400, writing nothing', async () => {
    process.env.ALLOW_LOOPBACK_WEBHOOKS = '';
    const t = await w.a.tenant();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ url: 'http://shop.example.com/orders' }, 'config.url'],
      [{ url: 'http://127.0.0.1:9/orders' }, 'config.url'],
      [{ url: 'https://localhost/orders' }, 'config.url'],
      [{ url: 'https://10.1.2.3/orders' }, 'config.url'],
      [{ url: 'https://169.254.169.254/latest' }, 'config.url'],
      [{ url: 'https://[::ffff:7f00:1]/x' }, 'config.url'],
      [{ url: 'https://user:pw@shop.example.com/x' }, 'config.url'],
      [{}, 'config.url'],
      [{ url: 'https://shop.example.com/x', timeoutMs: 499 }, 'config.timeoutMs'],
      [{ url: 'https://shop.example.com/x', timeoutMs: 10_001 }, 'config.timeoutMs'],
      [{ url: 'https://shop.example.com/x', timeoutMs: 1500.5 }, 'config.timeoutMs'],
      [{ url: 'https://shop.example.com/x', events: ['ticket.created'] }, 'config.events'],
    ];
    for (const [config, path] of bad) {
      const r = await w.a.call('POST', '/integrations', t.token, { type: 'action', name: 'Stock', config });
      expect(r.status, `${JSON.stringify(config)}: ${r.text}`).toBe(400);
      expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const secret = await w.a.call('POST', '/integrations', t.token, {
      type: 'action',
      name: 'S',
      config: { url: 'https://shop.example.com/x' },
      credentials: { secret: 'nope' },
    });
    expect(secret.status).toBe(400);
    expect((await w.a.call('GET', '/integrations', t.token)).body.items).toEqual([]);
  });

  it('takes integrationId only for action "call", and only an action integration of the same tenant (else 400)', async () => {
    const t = await w.a.tenant();
    const other = await w.a.tenant();
    const mine = await action(t, 'https://shop.example.com/orders');
    const theirs = await action(other, 'https://shop.example.com/orders');
    const hook = await w.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'H',
      config: { url: 'https://hooks.example.com/x' },
    });
    const post = (body: Record<string, unknown>) => w.a.call('POST', '/intents', t.token, { ...SKU_INTENT, ...body });
    for (const [body, path] of [
      [{ action: 'call' }, 'integrationId'],
      [{ action: 'call', integrationId: theirs.id }, 'integrationId'],
      [{ action: 'call', integrationId: hook.body.id }, 'integrationId'],
      [{ action: 'call', integrationId: 'int_01NOPE' }, 'integrationId'],
      [{ action: 'reply', response: 'Checking.', integrationId: mine.id }, 'integrationId'],
      [{ action: 'reply', response: 'Checking.', failureResponse: 'Sorry' }, 'failureResponse'],
      [{ action: 'reply' }, 'response'],
    ] as Array<[Record<string, unknown>, string]>) {
      const r = await post(body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
      expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const ok = await post({
      action: 'call',
      integrationId: mine.id,
      failureResponse: 'Stock is out of reach just now.',
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      action: 'call',
      integrationId: mine.id,
      failureResponse: 'Stock is out of reach just now.',
    });
    // Another tenant cannot read its calls either.
    expect((await w.a.call('GET', `/integrations/${mine.id}/calls`, other.token)).status).toBe(404);
  });
});

describe('the call from the chat', () => {
  it('POSTs the signed intent.action request once the entity is found, and renders the response from data', async () => {
    const s = await shop(() => ({ body: { data: { stock: { count: 7, where: 'in the Leeds warehouse' } } } }));
    const r = await s.ask({ visitor: { userId: 'cust-9', email: 'Nia@Example.com' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message.content).toBe('SKU 1234: 7 in stock, in the Leeds warehouse.');
    expect(r.body.metadata).toMatchObject({
      intentDetected: 'stock_check',
      action: { integrationId: s.act.id, status: 'ok' },
    });
    expect(r.body.metadata.action.latencyMs).toBeGreaterThanOrEqual(0);
    expect(s.ep.got).toHaveLength(1);
    const [got] = s.ep.got;
    const payload = new Webhook(s.act.secret).verify(got!.body, got!.headers as Record<string, string>) as Record<
      string,
      any
    >;
    expect(payload).toMatchObject({
      type: 'intent.action',
      data: {
        intent: 'stock_check',
        entities: { sku: '1234' },
        message: ASK,
        conversationId: r.body.conversationId,
        customer: { userId: 'cust-9', email: 'nia@example.com', verified: false },
      },
    });
    expect(Date.parse(payload.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    expect(got!.headers['webhook-id']).toMatch(/^act_/);
    // Tampered, it no longer verifies.
    expect(() =>
      new Webhook(s.act.secret).verify(got!.body.replace('1234', '9999'), got!.headers as Record<string, string>),
    ).toThrow();
  });

  it('asks for a required entity first and calls only when it is given; a verified customer is sent as verified', async () => {
    const s = await shop(() => ({ body: { reply: 'Yes: 3 left.' } }));
    const secret = (await w.a.call('POST', '/settings/identity-secret/rotate', s.t.token)).body.secret as string;
    const visitor = { userId: 'u-1', userHash: createHmac('sha256', secret).update('u-1').digest('hex') };
    const first = await s.ask({ message: 'is this in stock, SKU please check', visitor });
    if (first.body.metadata.intentDetected === 'stock_check') {
      expect(first.body.metadata.action).toBeUndefined();
      expect(s.ep.got).toHaveLength(0);
    }
    const r = await s.ask({ visitor });
    expect(r.body.message.content).toBe('Yes: 3 left.');
    const payload = JSON.parse(s.ep.got.at(-1)!.body);
    expect(payload.data.customer).toEqual({ userId: 'u-1', email: null, verified: true });
    // Without a visitor: null.
    await s.ask();
    expect(JSON.parse(s.ep.got.at(-1)!.body).data.customer).toBeNull();
  });

  it("takes the answer's reply as it is, and hands over when the answer says handoff", async () => {
    const s = await shop(() => ({
      body: { reply: 'That one is discontinued; a colleague will suggest another.', handoff: true },
    }));
    const r = await s.ask();
    expect(r.body.message.content).toContain('That one is discontinued; a colleague will suggest another.');
    expect(r.body.metadata.ticketId).toMatch(/^tkt_/);
    expect(r.body.metadata.action.status).toBe('ok');
    const tickets = await w.a.call('GET', '/tickets', s.t.token);
    expect(tickets.body.items).toHaveLength(1);
  });

  it('answers the failure response, never a half-filled one, for every kind of bad answer', async () => {
    const cases: Array<[string, Answer]> = [
      ['500', { status: 500, body: { reply: 'boom' } }],
      ['a redirect', { status: 302, headers: { location: 'https://example.com/' }, body: { reply: 'moved' } }],
      ['not JSON', { body: 'stock: 7' }],
      ['a JSON array', { body: [1, 2] }],
      ['an empty reply', { body: { reply: '   ' } }],
      ['a reply too long', { body: { reply: 'x'.repeat(2001) } }],
      ['too large', { body: { data: { stock: { count: 1, where: 'here' }, pad: 'y'.repeat(17 * 1024) } } }],
      ['a placeholder with no value', { body: { data: { stock: { count: 7 } } } }],
      ['an object where a value goes', { body: { data: { stock: { count: { n: 7 }, where: 'here' } } } }],
      ['handoff not a boolean', { body: { reply: 'ok', handoff: 'yes' } }],
    ];
    const s = await shop(
      () => ({}),
      {},
      { failureResponse: 'I cannot check SKU {{sku}} right now; ask me for a person if it is urgent.' },
    );
    for (const [what, answer] of cases) {
      s.ep.got.length = 0;
      const ep = await endpoint(() => answer);
      await w.a.call('PUT', `/integrations/${s.act.id}`, s.t.token, {
        type: 'action',
        name: 'Stock',
        config: { url: ep.url },
      });
      const r = await s.ask();
      expect(r.status, what).toBe(200);
      expect(r.body.message.content, what).toBe(
        'I cannot check SKU 1234 right now; ask me for a person if it is urgent.',
      );
      expect(r.body.metadata.action.status, what).toBe('failed');
      expect(r.body.metadata.ticketId, what).toBeUndefined();
      expect(ep.got, what).toHaveLength(1);
    }
  }, 60_000);

  it('says the default failure sentence when the intent has no failure response', async () => {
    const s = await shop(() => ({ status: 503 }));
    const r = await s.ask();
    expect(r.body.message.content).toMatch(/can't look that up right now.*person/);
    expect(r.body.message.content).not.toContain('{{');
  });

  it('never holds the chat past the timeout: the answer comes within timeoutMs + 300 ms', async () => {
    const s = await shop(() => 'hang', { timeoutMs: 500 });
    // What a message costs this machine now without any action (a busy machine is slow for every message).
    await chatOn(w.rt, s.t.widgetKey, '/message', { message: 'hello' });
    const plainStarted = performance.now();
    await chatOn(w.rt, s.t.widgetKey, '/message', { message: 'hello there' });
    const plain = performance.now() - plainStarted;
    const started = performance.now();
    const r = await s.ask();
    const took = performance.now() - started;
    expect(r.body.metadata.action).toMatchObject({ status: 'timeout' });
    expect(r.body.metadata.action.latencyMs).toBeLessThanOrEqual(800);
    expect(took, `plain message ${Math.round(plain)} ms`).toBeLessThan(500 + 300 + plain);
    expect(r.body.message.content).toMatch(/can't look that up/);
  });

  it('a request replayed with the same Idempotency-Key does not call again', async () => {
    const s = await shop(() => ({ body: { reply: 'Yes: 3 left.' } }));
    const a = await s.ask({}, { 'idempotency-key': 'k-1' });
    const b = await s.ask({}, { 'idempotency-key': 'k-1' });
    expect(b.body).toEqual(a.body);
    expect(s.ep.got).toHaveLength(1);
    await s.ask({}, { 'idempotency-key': 'k-2' });
    expect(s.ep.got).toHaveLength(2);
  });

  it("does not call for a message its conversation's full window refuses (429), once the window was found full", async () => {
    // 5 s into a minute: the 30 messages fit in it.
    fakeClock('2031-05-06T10:20:05.000Z');
    const s = await shop(() => ({ body: { reply: 'Yes: 3 left.' } }));
    const first = await s.ask();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const conversationId = first.body.conversationId as string;
    for (let n = 2; n <= 30; n++) {
      const r = await chatOn(w.rt, s.t.widgetKey, '/message', { conversationId, message: `hello number ${n}` });
      expect(r.status).toBe(200);
    }
    expect(s.ep.got).toHaveLength(1);
    // The 31st finds the window full when it writes; the next is refused before it is read.
    const full = await chatOn(w.rt, s.t.widgetKey, '/message', { conversationId, message: 'hello again' });
    expect(full.status).toBe(429);
    const refused = await s.ask({ conversationId });
    expect(refused.status).toBe(429);
    expect(s.ep.got).toHaveLength(1);
  }, 90_000);

  it('skips the action for 60 s after 5 failures in a row, then tries it again', async () => {
    let healthy = false;
    const s = await shop(() => (healthy ? { body: { reply: 'Back: 2 left.' } } : { status: 500 }));
    // The clock stands still from here, so the breaker opens at a known instant.
    const clock = fakeClock();
    for (let n = 0; n < 5; n++) expect((await s.ask()).body.metadata.action.status).toBe('failed');
    const skipped = await s.ask();
    expect(skipped.body.metadata.action).toMatchObject({ status: 'skipped', latencyMs: 0 });
    expect(s.ep.got).toHaveLength(5);
    healthy = true;
    clock.advance(59_999);
    expect((await s.ask()).body.metadata.action.status).toBe('skipped');
    clock.advance(1);
    const back = await s.ask();
    expect(back.body.metadata.action.status).toBe('ok');
    expect(back.body.message.content).toBe('Back: 2 left.');
    expect(s.ep.got).toHaveLength(6);
    // The breaker is the integration's: another tenant's action at the same endpoint was never skipped.
    const other = await shop(() => ({ status: 500 }));
    expect((await other.ask()).body.metadata.action.status).toBe('failed');
    // A change of the integration (its URL fixed) closes the breaker at once.
    healthy = false;
    for (let n = 0; n < 5; n++) await s.ask();
    expect((await s.ask()).body.metadata.action.status).toBe('skipped');
    await w.a.call('PUT', `/integrations/${s.act.id}`, s.t.token, {
      type: 'action',
      name: 'Stock',
      config: { url: s.ep.url },
    });
    expect((await s.ask()).body.metadata.action.status).toBe('failed');
  });

  it('lists the recent calls with status and latency, newest first', async () => {
    let n = 0;
    const s = await shop(() => (n++ === 0 ? { body: { reply: 'Yes.' }, delayMs: 120 } : { status: 500 }));
    const first = await s.ask();
    await s.ask();
    const calls = await w.a.call('GET', `/integrations/${s.act.id}/calls`, s.t.token);
    expect(calls.status).toBe(200);
    expect(calls.body.items).toHaveLength(2);
    expect(calls.body.items[0]).toMatchObject({ intent: 'stock_check', status: 'failed', httpStatus: 500 });
    expect(calls.body.items[1]).toMatchObject({
      intent: 'stock_check',
      status: 'ok',
      httpStatus: 200,
      error: null,
      conversationId: first.body.conversationId,
    });
    expect(calls.body.items[1].latencyMs).toBeGreaterThanOrEqual(120);
  });

  it('sends action.failed at most once a minute per integration', async () => {
    const s = await shop(() => ({ status: 500 }));
    const seen: Got[] = [];
    const rcv = await endpoint((_n, g) => {
      seen.push(g);
      return { status: 200 };
    });
    const hook = await w.a.call('POST', '/integrations', s.t.token, {
      type: 'webhook',
      name: 'Ops',
      config: { url: rcv.url, events: ['action.failed'] },
    });
    expect(hook.status).toBe(201);
    await s.ask();
    await s.ask();
    await s.ask();
    await eventually(() => expect(rcv.got.length, 'action.failed deliveries').toBeGreaterThanOrEqual(1));
    // A later event to another endpoint: once it arrives, the stream has handed on every record
    // written before it, and once the delivery queue is idle, all of them were delivered.
    const marker = await endpoint(() => ({ status: 200 }));
    const markerHook = await w.a.call('POST', '/integrations', s.t.token, {
      type: 'webhook',
      name: 'Marker',
      config: { url: marker.url, events: ['conversation.created'] },
    });
    expect(markerHook.status).toBe(201);
    expect((await chatOn(w.rt, s.t.widgetKey, '/message', { message: 'hello' })).status).toBe(200);
    await eventually(() => expect(marker.got.length, 'the marker event').toBeGreaterThanOrEqual(1));
    await w.rt.queue.idle();
    expect(rcv.got).toHaveLength(1);
    const e = JSON.parse(rcv.got[0]!.body);
    expect(e).toMatchObject({
      type: 'action.failed',
      data: { integrationId: s.act.id, intent: 'stock_check', status: 'failed' },
    });
  });
});

describe('the address guard at call time', () => {
  it('refuses a loopback address after resolution when loopback is not allowed: failed, nothing reaches the endpoint', async () => {
    const s = await shop(() => ({ body: { reply: 'should not be seen' } }));
    process.env.ALLOW_LOOPBACK_WEBHOOKS = '';
    const r = await s.ask();
    expect(r.body.metadata.action.status).toBe('failed');
    expect(r.body.message.content).not.toContain('should not be seen');
    expect(s.ep.got).toHaveLength(0);
    process.env.ALLOW_LOOPBACK_WEBHOOKS = '1';
    const calls = await w.a.call('GET', `/integrations/${s.act.id}/calls`, s.t.token);
    expect(calls.body.items[0].error).toMatch(/refused address|loopback/);
  });
});

describe('POST /integrations/:id/test on an action', () => {
  it('calls once and answers the reply a customer would read; stores nothing', async () => {
    const s = await shop(() => ({ body: { data: { stock: { count: 4, where: 'in Bristol' } } } }));
    const r = await w.a.call('POST', `/integrations/${s.act.id}/test`, s.t.token, {
      intent: 'stock_check',
      entities: { sku: '5555' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      action: { status: 'ok', latencyMs: expect.any(Number) },
      reply: 'SKU 5555: 4 in stock, in Bristol.',
    });
    expect(s.ep.got).toHaveLength(1);
    const payload = new Webhook(s.act.secret).verify(s.ep.got[0]!.body, s.ep.got[0]!.headers as Record<string, string>);
    expect(payload).toMatchObject({
      type: 'intent.action',
      data: { intent: 'stock_check', entities: { sku: '5555' }, conversationId: null, customer: null },
    });
    expect((await w.a.call('GET', `/integrations/${s.act.id}/calls`, s.t.token)).body.items).toEqual([]);
    // Unsaved words can be tried; a failure answers the failure response.
    s.ep.got.length = 0;
    const tried = await w.a.call('POST', `/integrations/${s.act.id}/test`, s.t.token, {
      intent: 'stock_check',
      entities: { sku: '1' },
      response: 'Only {{data.stock.nope}}.',
      failureResponse: 'No luck.',
    });
    expect(tried.body).toEqual({ action: { status: 'failed', latencyMs: expect.any(Number) }, reply: 'No luck.' });
    expect((await w.a.call('POST', `/integrations/${s.act.id}/test`, s.t.token, {})).status).toBe(400);
  });

  it('still queues a ping for a webhook (202), and refuses action fields there', async () => {
    const t = await w.a.tenant();
    const hook = await w.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'H',
      config: { url: 'https://hooks.example.com/x' },
    });
    expect((await w.a.call('POST', `/integrations/${hook.body.id}/test`, t.token)).status).toBe(202);
    expect((await w.a.call('POST', `/integrations/${hook.body.id}/test`, t.token, { intent: 'x' })).status).toBe(400);
  });
});

describe("npm start's demo shop", () => {
  it("serves an order endpoint that checks the signature, and the demo's order_status answers from it", async () => {
    const { startDemoHost } = await import('../../local/web.ts');
    const { connectDemoOrders } = await import('../../local/demo/seed.ts');
    const { ORDER_STATUS_PATH } = await import('../../local/demo/orders.ts');
    const t = await w.a.tenant('Demo Shop');
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const demo = await startDemoHost({ apiUrl: w.rt.url, widgetKey: t.widgetKey, orderSecret: secret });
    try {
      const unsigned = await fetch(`${demo.url}${ORDER_STATUS_PATH}`, {
        method: 'POST',
        body: '{"type":"intent.action"}',
      });
      expect(unsigned.status).toBe(401);
      await connectDemoOrders(w.rt.url, t.token, `${demo.url}${ORDER_STATUS_PATH}`, secret);
      // Run again (as with --persist), it replaces the secret and changes nothing else.
      await connectDemoOrders(w.rt.url, t.token, `${demo.url}${ORDER_STATUS_PATH}`, secret);
      expect((await w.a.call('GET', '/integrations', t.token)).body.items).toHaveLength(1);
      const r = await chatOn(w.rt, t.widgetKey, '/message', { message: 'where is my order 12345' });
      expect(r.body.metadata.intentDetected).toBe('order_status');
      expect(r.body.message.content).toBe(
        'Order 12345 is shipped: it left our roastery on Monday and should arrive by Thursday.',
      );
      expect(r.body.metadata.action.status).toBe('ok');
      const unknown = await chatOn(w.rt, t.widgetKey, '/message', { message: 'where is my order 77777' });
      expect(unknown.body.message.content).toMatch(/couldn't find order 77777/);
    } finally {
      await demo.stop();
    }
  });
});
