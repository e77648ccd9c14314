import { createServer, type Server } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clock } from '#shared/core/clock.ts';
import { db } from '#shared/data/client.ts';
import { keys } from '#shared/data/keys.ts';
import { TTL_ATTRIBUTE } from '#shared/data/table.ts';
import { ticketsRepo } from '#shared/data/tickets.ts';
import { event } from './webhooks/harness.ts';
import { fanOut, RETRY_SCHEDULE, MAX_ATTEMPTS } from '#shared/domain/events-out/deliveries.ts';
import { runRetention } from '#shared/domain/privacy/retention.ts';
import { fakeClock, useRealClock } from '../fixtures/clock.ts';
import { fetchServed } from './client.ts';
import { eventually } from '../support/eventually.ts';
import { webhookFile } from './webhooks/harness.ts';

// The rules that depend on time, run in this process (the local runtime's handlers on DynamoDB
// Local) with a fake clock: each test moves the clock instead of waiting, and each expectation is
// an exact instant or the side of a boundary, so broken time arithmetic fails here.

const w = webhookFile();
afterEach(() => {
  useRealClock();
  process.env.DELIVERY_TIMEOUT_MS = '1000';
});

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** A widget's POST to the chat API, with the response's headers. */
async function chat(widgetKey: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetchServed(`${w.rt.url}/api/v1/chat${path}`, {
    method: path === '/widget' ? 'GET' : 'POST',
    headers: {
      'x-widget-key': widgetKey,
      ...(path === '/widget' ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(path === '/widget' ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
}
const item = async (key: { pk: string; sk: string }) =>
  (
    await db.send(
      new GetCommand({ TableName: process.env.TABLE_NAME!, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }),
    )
  ).Item;

describe('rate windows', () => {
  it('a conversation takes 30 messages a minute: the 31st waits for the next minute, not for 60 s after the first', async () => {
    // 10 s into a minute: the window ends in 50 s.
    const c = fakeClock('2031-05-06T10:20:10.000Z');
    const t = await w.a.tenant('Window Shop');
    const first = await chat(t.widgetKey, '/message', { message: 'hello there' });
    expect(first.status).toBe(200);
    const conversationId = first.body.conversationId as string;
    for (let n = 2; n <= 30; n++) {
      const r = await chat(t.widgetKey, '/message', { conversationId, message: `question number ${n}` });
      expect(r.status).toBe(200);
    }
    const full = await chat(t.widgetKey, '/message', { conversationId, message: 'one more' });
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBe('50');
    // The window's item expires two minutes after the moment that counted (DynamoDB TTL, in seconds).
    const window = await item(keys.rateWindow(t.tenantId, conversationId, '2031-05-06T10:20'));
    expect(window).toMatchObject({ n: 30, [TTL_ATTRIBUTE]: Date.parse('2031-05-06T10:20:10Z') / 1000 + 120 });
    c.set('2031-05-06T10:20:59.999Z');
    expect((await chat(t.widgetKey, '/message', { conversationId, message: 'still full' })).status).toBe(429);
    c.set('2031-05-06T10:21:00.000Z');
    expect((await chat(t.widgetKey, '/message', { conversationId, message: 'a new minute' })).status).toBe(200);
  }, 90_000);

  it('new conversations per minute from one address follow the setting, and the next minute opens again', async () => {
    const c = fakeClock('2031-05-06T11:00:45.000Z');
    const t = await w.a.tenant('Busy Shop');
    expect(
      (await w.a.call('PUT', '/settings', t.token, { config: { widget: { newConversationsPerMinute: 2 } } })).status,
    ).toBe(200);
    for (let n = 0; n < 2; n++) expect((await chat(t.widgetKey, '/message', { message: `hi ${n}` })).status).toBe(200);
    const refused = await chat(t.widgetKey, '/message', { message: 'hi again' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('15');
    // The key's window (shared by every address) expires two windows after its start.
    const start = Date.parse('2031-05-06T11:00:00Z');
    const key = await item(keys.limitWindow(t.tenantId, 'newconv', new Date(start).toISOString()));
    expect(key).toMatchObject({ n: 2, [TTL_ATTRIBUTE]: start / 1000 + 120 });
    c.advance(14_999);
    expect((await chat(t.widgetKey, '/message', { message: 'same minute' })).status).toBe(429);
    c.advance(1);
    expect((await chat(t.widgetKey, '/message', { message: 'next minute' })).status).toBe(200);
  });
});

describe('the ticket-number lease', () => {
  it('lapses after its 8 s, not before; an escalation waits for it and then takes the next number', async () => {
    const c = fakeClock('2031-05-07T09:00:00.000Z');
    const t = await w.a.tenant('Lease Shop');
    const held = await ticketsRepo.leaseNumber(t.tenantId, 'someone-else', 8000);
    expect(held).toMatchObject({ owner: 'someone-else', last: 0 });
    c.advance(8000);
    expect(await ticketsRepo.leaseNumber(t.tenantId, 'me', 8000)).toBeNull();
    c.advance(1);
    const mine = await ticketsRepo.leaseNumber(t.tenantId, 'me', 8000);
    expect(mine?.owner).toBe('me');

    // An escalation while the lease is held backs off; the clock passing the lease lets it through.
    const opened = await chat(t.widgetKey, '/message', { message: 'hello' });
    let done = false;
    const escalation = chat(t.widgetKey, '/escalate', {
      conversationId: opened.body.conversationId,
      reason: 'needs a person',
    }).finally(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    c.advance(8001);
    const r = await escalation;
    expect(r.status).toBe(200);
    expect(r.body.ticketNumber).toBe(1);
  });
});

describe('business hours', () => {
  // New York, weekdays 09:00 to 17:00. Summer time starts on Sunday 8 March 2026 (EST, UTC-5, to
  // EDT, UTC-4): Friday's close is 22:00 UTC, Monday's opening 13:00 UTC.
  const hours = { timezone: 'America/New_York', weekly: { mon: [['09:00', '17:00']], fri: [['09:00', '17:00']] } };

  it('is open or closed at the instant the clock says, and names the next opening across the weekend and the change of time', async () => {
    const c = fakeClock('2026-03-06T21:59:00.000Z');
    const t = await w.a.tenant('Hours Shop');
    expect((await w.a.call('PUT', '/settings', t.token, { config: { businessHours: hours } })).status).toBe(200);
    const widget = async () => (await chat(t.widgetKey, '/widget', undefined)).body;
    expect(await widget()).toMatchObject({ online: true, nextOpenAt: null });
    c.advance(MIN);
    expect(await widget()).toMatchObject({ online: false, nextOpenAt: '2026-03-09T13:00:00.000Z' });
    c.set('2026-03-09T12:59:59.000Z');
    expect(await widget()).toMatchObject({ online: false, nextOpenAt: '2026-03-09T13:00:00.000Z' });
    c.set('2026-03-09T13:00:00.000Z');
    expect(await widget()).toMatchObject({ online: true });
    // Monday 17:00 EDT is 21:00 UTC; the next opening is Friday.
    c.set('2026-03-09T21:00:00.000Z');
    expect(await widget()).toMatchObject({ online: false, nextOpenAt: '2026-03-13T13:00:00.000Z' });
  });
});

describe('retention', () => {
  it('stamps a conversation once it has been idle for the tenant’s days, to the minute', async () => {
    const c = fakeClock('2031-06-01T08:00:00.000Z');
    const t = await w.a.tenant('Keeper Shop');
    expect(
      (await w.a.call('PUT', '/settings', t.token, { config: { retention: { conversationDays: 30 } } })).status,
    ).toBe(200);
    const conversationId = (await chat(t.widgetKey, '/message', { message: 'an old question' })).body
      .conversationId as string;
    const conv = () => item(keys.conversation(t.tenantId, conversationId));
    c.advance(30 * DAY - MIN);
    await runRetention();
    expect((await conv())?.[TTL_ATTRIBUTE]).toBeUndefined();
    c.advance(2 * MIN);
    await runRetention();
    expect((await conv())?.[TTL_ATTRIBUTE]).toBeTypeOf('number');
  });
});

describe('the retry schedule of webhook deliveries', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('asks for each retry at the schedule’s step after the failed attempt, and gives up after the last', async () => {
    const c = fakeClock('2031-07-01T00:00:00.000Z');
    // Time for the receiver's own read below before the attempt gives up on it, on a loaded machine too.
    process.env.DELIVERY_TIMEOUT_MS = '10000';
    const t = await w.a.tenant('Retry Shop');
    // A receiver that fails every attempt; at each retry it reads when the delivery said it would
    // come (the record of the attempt before), then moves the clock there, as the queue's wait would.
    const asked: string[] = [];
    const arrived: number[] = [];
    let integrationId = '';
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        arrived.push(clock.now());
        if (arrived.length > 1) {
          const [d] = (await w.a.call('GET', `/integrations/${integrationId}/deliveries`, t.token)).body.items;
          asked.push(d.nextAttemptAt);
          c.set(d.nextAttemptAt);
        }
        res.writeHead(500).end('no');
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const h = await w.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Retry',
      config: { url, events: ['ticket.created'] },
    });
    expect(h.status).toBe(201);
    integrationId = h.body.id;
    await fanOut(event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_1' } }));
    await eventually(
      async () => {
        const [d] = (await w.a.call('GET', `/integrations/${integrationId}/deliveries`, t.token)).body.items;
        expect(d.status).toBe('failed');
      },
      { what: 'the delivery failed after its last attempt', interval: 50 },
    );
    expect(arrived).toHaveLength(MAX_ATTEMPTS);
    const start = Date.parse('2031-07-01T00:00:00.000Z');
    let at = start;
    const expected = RETRY_SCHEDULE.map((s) => {
      at += s * 1000;
      return new Date(at).toISOString();
    });
    expect(asked).toEqual(expected);
    expect(arrived[0]).toBe(start);
  }, 60_000);
});

describe('the idempotency record', () => {
  it('holds a key for 24 hours and frees it after', async () => {
    const c = fakeClock('2031-08-01T00:00:00.000Z');
    const t = await w.a.tenant('Once Shop');
    const opened = (await chat(t.widgetKey, '/message', { message: 'hello' })).body.conversationId as string;
    const send = (message: string) =>
      chat(t.widgetKey, '/message', { conversationId: opened, message }, { 'idempotency-key': 'key-1' });
    const first = await send('what are your opening hours');
    expect(first.status).toBe(200);
    c.advance(DAY - 1000);
    const replayed = await send('what are your opening hours');
    expect(replayed.body.message.id).toBe(first.body.message.id);
    c.advance(2000);
    const fresh = await send('what are your opening hours');
    expect(fresh.status).toBe(200);
    expect(fresh.body.message.id).not.toBe(first.body.message.id);
  });
});
