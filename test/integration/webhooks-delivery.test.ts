import { afterEach, describe, expect, it, vi } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { fanOut, RETRY_SCHEDULE, MAX_ATTEMPTS } from '#shared/domain/events-out/deliveries.ts';
import { EVENT_TYPES } from '#shared/core/vocabulary.ts';
import { fakeClock, useRealClock } from '../fixtures/clock.ts';
import { event, webhookFile, type Receiver } from './webhooks/harness.ts';
import { eventually } from '../support/eventually.ts';
import { pendingDelivery } from '../fixtures/deliveries.ts';

// Events out, end to end through the local runtime: fanOut (as the dispatcher calls it) -> delivery
// items and queue messages -> the SQS emulation -> functions/events/deliver.ts -> real receivers on
// loopback, checked with the Standard Webhooks library itself.

const w = webhookFile();
const { receiver, hook } = w;
afterEach(() => {
  useRealClock();
});

const deliveries = async (t: { token: string }, id: string, query = '') =>
  (await w.a.call('GET', `/integrations/${id}/deliveries${query}`, t.token)).body.items as Array<Record<string, any>>;

const integration = async (t: { token: string }, id: string) =>
  ((await w.a.call('GET', '/integrations', t.token)).body.items as Array<Record<string, any>>).find(
    (i) => i.id === id,
  )!;

/** The queue's retry delays for one delivery run, in seconds (the visibility each failed attempt asked for). */
const delaysAsked = (count: number) =>
  w.rt.queue.ops
    .filter((o) => o.op === 'changeVisibility')
    .slice(-count)
    .map((o) => o.seconds);

describe('signatures (Standard Webhooks)', () => {
  it('signs every delivery so that the standardwebhooks verifier accepts it, and refuses it tampered or old', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver();
    const h = await hook(t, rcv.url);
    expect(h.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const e = event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_1', status: 'open' } });
    await fanOut(e);
    const [got] = await rcv.waitFor(1);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['webhook-id']).toBe(e.id);
    expect(JSON.parse(got!.body)).toEqual({ type: 'ticket.created', timestamp: e.timestamp, data: e.data });
    const wh = new Webhook(h.secret);
    expect(wh.verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(got!.body));

    const headers = got!.headers as Record<string, string>;
    expect(() => wh.verify(got!.body.replace('tkt_1', 'tkt_2'), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, headers)).toThrow(
      WebhookVerificationError,
    );
    // The same request replayed ten minutes later is refused by the verifier's timestamp tolerance.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 });
    try {
      expect(() => wh.verify(got!.body, headers)).toThrow(/too old/);
    } finally {
      vi.useRealTimers();
    }
    const [d] = await deliveries(t, h.id);
    expect(d).toMatchObject({
      eventId: e.id,
      eventType: 'ticket.created',
      status: 'succeeded',
      attempts: 1,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
  });
});

describe('retries', () => {
  it('retries 5xx answers and timeouts on the documented schedule with one webhook-id, then succeeds', async () => {
    const t = await w.a.tenant();
    // 503, no answer (times out), 500, then 200.
    const rcv = await receiver((n) => (n === 0 ? 503 : n === 1 ? 'hang' : n === 2 ? 500 : 200));
    const h = await hook(t, rcv.url);
    const e = event(t.tenantId, 'conversation.created', { conversation: { id: 'c1' } });
    await fanOut(e);
    const got = await rcv.waitFor(4);
    await w.rt.queue.idle();
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([e.id]));
    // Each attempt is signed afresh, and each verifies.
    for (const r of got)
      expect(() => new Webhook(h.secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    expect(delaysAsked(3)).toEqual(RETRY_SCHEDULE.slice(0, 3));
    const [d] = await deliveries(t, h.id);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 4, lastResponseStatus: 200, lastError: null });
    expect(got.length).toBe(4);
  });

  it('gives up after the last step of the schedule: 8 attempts, then failed, with the answer kept to 1 KiB', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver(() => 500);
    const h = await hook(t, rcv.url);
    const e = event(t.tenantId, 'message.created', { conversationId: 'c1', message: { id: 'm1' } });
    await fanOut(e);
    await rcv.waitFor(MAX_ATTEMPTS);
    await w.rt.queue.idle();
    expect(rcv.received).toHaveLength(MAX_ATTEMPTS);
    expect(delaysAsked(RETRY_SCHEDULE.length)).toEqual([...RETRY_SCHEDULE]);
    expect(new Set(rcv.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([e.id]));
    const [d] = await deliveries(t, h.id);
    expect(d).toMatchObject({
      status: 'failed',
      attempts: MAX_ATTEMPTS,
      lastResponseStatus: 500,
      nextAttemptAt: null,
      lastError: 'answered 500: receiver says no',
    });
    expect((await deliveries(t, h.id, '?status=failed')).map((x) => x.id)).toEqual([d!.id]);
    expect(await deliveries(t, h.id, '?status=pending')).toEqual([]);
  });

  it('treats a redirect as a failure and does not follow it; keeps at most 1 KiB of an answer', async () => {
    const t = await w.a.tenant();
    const target = await receiver(() => 200);
    const big = 'x'.repeat(10_000);
    const { createServer } = await import('node:http');
    const redirecting = createServer((req, res) => {
      if (req.url === '/big') {
        res.writeHead(500);
        res.end(big);
        return;
      }
      res.writeHead(302, { location: target.url });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const port = (redirecting.address() as { port: number }).port;
    try {
      const h1 = await hook(t, `http://127.0.0.1:${port}/moved`);
      const h2 = await hook(t, `http://127.0.0.1:${port}/big`);
      const e = event(t.tenantId, 'ticket.updated', {
        ticket: { id: 'tkt_1' },
        changes: { priority: { from: 'low', to: 'high' } },
      });
      await fanOut(e);
      await eventually(async () => {
        expect((await deliveries(t, h1.id))[0]?.lastResponseStatus).toBe(302);
        expect((await deliveries(t, h2.id))[0]?.lastResponseStatus).toBe(500);
      });
      expect(target.received).toEqual([]);
      expect((await deliveries(t, h1.id))[0]!.lastError).toMatch(/^answered 302; redirects are not followed/);
      const err = (await deliveries(t, h2.id))[0]!.lastError as string;
      expect(err.length).toBeLessThanOrEqual(1024);
      expect(err).toMatch(/^answered 500: x+$/);
    } finally {
      redirecting.closeAllConnections();
      redirecting.close();
    }
  });
});

describe('claiming an attempt', () => {
  // Under load the table can apply a write and lose its answer; the SDK then sends it again. Seen in
  // the sustained-load part of the faults bench: the resent claim was refused, the consumer deleted
  // the message, and the delivery stayed pending with one attempt and no answer, never sent.
  it('takes the same claim sent twice as held, and refuses another message or a later claim', async () => {
    const t = await w.a.tenant();
    const { deliveriesRepo } = await import('#shared/data/deliveries.ts');
    const d = pendingDelivery(`dlv_${Date.now().toString(36).padStart(26, '0')}`, 'int_claims', 'evt_claims');
    await deliveriesRepo.create(t.tenantId, d);
    const at = new Date().toISOString();
    expect(await deliveriesRepo.claim(t.tenantId, d, 'msg-1', at)).toBe(true);
    // The same request again, as the SDK resends it: held.
    expect(await deliveriesRepo.claim(t.tenantId, d, 'msg-1', at)).toBe(true);
    // Another queue message, or the same one claiming from a stale read at another time: refused.
    expect(await deliveriesRepo.claim(t.tenantId, d, 'msg-2', at)).toBe(false);
    expect(await deliveriesRepo.claim(t.tenantId, d, 'msg-1', new Date(Date.parse(at) + 1).toISOString())).toBe(false);
    expect((await deliveriesRepo.get(t.tenantId, d.integrationId, d.id))?.attempts).toBe(1);
  });
});

describe('who gets what', () => {
  it('delivers exactly the subscribed event types, and all of them by default', async () => {
    const t = await w.a.tenant();
    const some = await receiver();
    const all = await receiver();
    await hook(t, some.url, { events: ['ticket.created', 'conversation.rated'] });
    await hook(t, all.url);
    const events = EVENT_TYPES.map((type) => event(t.tenantId, type, { n: type }));
    for (const e of events) await fanOut(e);
    await all.waitFor(EVENT_TYPES.length);
    await w.rt.queue.idle();
    const types = (r: Receiver) => r.received.map((x) => JSON.parse(x.body).type as string).sort();
    expect(types(some)).toEqual(['conversation.rated', 'ticket.created']);
    expect(types(all)).toEqual([...EVENT_TYPES].sort());
  });

  it("never delivers a tenant's events to another tenant's endpoint", async () => {
    const [t1, t2] = await Promise.all([w.a.tenant('One'), w.a.tenant('Two')]);
    const r1 = await receiver();
    const r2 = await receiver();
    await hook(t1, r1.url);
    await hook(t2, r2.url);
    const e1 = event(t1.tenantId, 'ticket.created', { ticket: { id: 'tkt_one' } });
    const e2 = event(t2.tenantId, 'ticket.created', { ticket: { id: 'tkt_two' } });
    await Promise.all([fanOut(e1), fanOut(e2)]);
    await Promise.all([r1.waitFor(1), r2.waitFor(1)]);
    await w.rt.queue.idle();
    expect(r1.received.map((r) => r.headers['webhook-id'])).toEqual([e1.id]);
    expect(r2.received.map((r) => r.headers['webhook-id'])).toEqual([e2.id]);
  });

  it('makes one delivery per event and integration however often the dispatcher retries', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver();
    const h = await hook(t, rcv.url);
    const e = event(t.tenantId, 'conversation.escalated', { conversation: { id: 'c1' }, ticket: { id: 'tkt_1' } });
    await Promise.all([fanOut(e), fanOut(e)]);
    await fanOut(e);
    await rcv.waitFor(1);
    await w.rt.queue.idle();
    expect(rcv.received).toHaveLength(1);
    expect(await deliveries(t, h.id)).toHaveLength(1);
  });

  it('a receiver that is down for a while gets every event once it is back, in order: the later ones wait behind the first', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver();
    const port = rcv.port;
    const h = await hook(t, rcv.url);
    await rcv.close();
    const events = Array.from({ length: 5 }, (_, i) => event(t.tenantId, 'message.created', { i }));
    for (const e of events) await fanOut(e);
    // Down: connections are refused; the first delivery is retried, the others are not attempted before it.
    const oldestFirst = async () => (await deliveries(t, h.id)).sort((a, b) => (a.eventId < b.eventId ? -1 : 1));
    await eventually(async () => {
      const items = await oldestFirst();
      expect(items.length).toBe(5);
      expect(items[0]!.attempts).toBeGreaterThanOrEqual(2);
    });
    expect((await oldestFirst()).slice(1).map((d) => d.attempts)).toEqual([0, 0, 0, 0]);
    const back = await receiver(() => 200, port);
    await eventually(async () => {
      const items = await deliveries(t, h.id);
      expect(items.map((d) => d.status)).toEqual(Array(5).fill('succeeded'));
    });
    // Each once, in the order of the events, the first with the id of its earlier attempts.
    expect(back.received.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));
    for (const r of back.received) {
      const e = events.find((x) => x.id === r.headers['webhook-id'])!;
      expect(JSON.parse(r.body)).toEqual({ type: e.type, timestamp: e.timestamp, data: e.data });
    }
    expect((await integration(t, h.id)).status).toBe('active');
  });

  it('an endpoint that never answers holds only its own deliveries: another endpoint of the tenant goes on; after its schedule a delivery fails and the next one is tried', async () => {
    const t = await w.a.tenant();
    const dead = await receiver(() => 503);
    const live = await receiver(() => 200);
    const hd = await hook(t, dead.url, { name: 'Dead' });
    const hl = await hook(t, live.url, { name: 'Live' });
    const events = Array.from({ length: 3 }, (_, i) => event(t.tenantId, 'message.created', { i }));
    for (const e of events) await fanOut(e);
    await live.waitFor(3);
    expect(live.received.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));
    // The whole schedule (8 attempts) of each, one delivery after the other, in order.
    await eventually(async () => {
      expect((await deliveries(t, hd.id)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
    });
    const ids = dead.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual(events.flatMap((e) => Array(8).fill(e.id)));
    expect((await deliveries(t, hl.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});

describe('disabling an endpoint', () => {
  it('disables on 410 Gone (audited as the system), delivers nothing more until an admin sets it active', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver(() => 410);
    const h = await hook(t, rcv.url);
    await fanOut(event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_1' } }));
    await eventually(async () => expect((await integration(t, h.id)).status).toBe('disabled'));
    await w.rt.queue.idle();
    expect(rcv.received).toHaveLength(1);
    expect((await deliveries(t, h.id))[0]).toMatchObject({ status: 'failed', attempts: 1, lastResponseStatus: 410 });
    const audit = (await w.a.call('GET', '/audit?category=integration', t.token)).body.items as Array<
      Record<string, any>
    >;
    expect(audit[0]).toMatchObject({
      action: 'integration.disabled',
      actor: { type: 'system', id: 'delivery' },
      target: { type: 'integration', id: h.id },
      changes: { status: { from: 'active', to: 'disabled' } },
    });

    await fanOut(event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_2' } }));
    await w.rt.queue.idle();
    expect(rcv.received).toHaveLength(1);
    expect(await deliveries(t, h.id)).toHaveLength(1);

    rcv.behave(() => 200);
    const put = await w.a.call('PUT', `/integrations/${h.id}`, t.token, {
      type: 'webhook',
      name: 'Orders',
      config: { url: rcv.url },
      status: 'active',
    });
    expect(put.status).toBe(200);
    expect(put.body.status).toBe('active');
    const e = event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_3' } });
    await fanOut(e);
    const got = await rcv.waitFor(2);
    // The secret was kept by a PUT without credentials.
    expect(new Webhook(h.secret).verify(got[1]!.body, got[1]!.headers as Record<string, string>)).toMatchObject({
      type: 'ticket.created',
    });
  });

  it('disables an endpoint that failed every delivery for 5 days; a success in between restarts the count', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver(() => 500);
    const h = await hook(t, rcv.url);
    const day = 24 * 3600 * 1000;
    const start = Date.now();
    const clock = fakeClock(start);
    const at = (ms: number) => clock.set(ms);
    const once = async (ms: number) => {
      at(ms);
      const n = rcv.received.length;
      await fanOut(event(t.tenantId, 'message.created', {}));
      await rcv.waitFor(n + 1);
      await eventually(async () =>
        expect((await deliveries(t, h.id))[0]!.lastAttemptAt).toBe(new Date(ms).toISOString()),
      );
    };
    // Failures from day 0; a success on day 3; failures again from day 4 until day 9.
    rcv.behave((n) => (n === 0 ? 500 : 200));
    await once(start);
    await w.rt.queue.idle();
    rcv.behave(() => 500);
    await once(start + 1 * day);
    await w.rt.queue.idle();
    expect((await integration(t, h.id)).status).toBe('active');
    rcv.behave(() => 200);
    await once(start + 3 * day);
    rcv.behave(() => 500);
    await once(start + 4 * day);
    await w.rt.queue.idle();
    at(start + 8.9 * day);
    expect((await integration(t, h.id)).status).toBe('active');
    await once(start + 8.9 * day);
    await w.rt.queue.idle();
    expect((await integration(t, h.id)).status).toBe('active');
    await once(start + 9 * day);
    await eventually(async () => expect((await integration(t, h.id)).status).toBe('disabled'));
    const audit = (await w.a.call('GET', '/audit?category=integration', t.token)).body.items as Array<
      Record<string, any>
    >;
    expect(audit[0]).toMatchObject({
      action: 'integration.disabled',
      actor: { type: 'system', id: 'delivery' },
      changes: { reason: { to: 'every delivery failed for 5 days' } },
    });
    await w.rt.queue.idle();
  });
});
