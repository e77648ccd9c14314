import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { LocalRuntime } from '../../bin/local/server.ts';
import { clock, fanOut, RETRY_SCHEDULE, MAX_ATTEMPTS } from '#shared/domain/deliveries.ts';
import { EVENT_TYPES } from '#shared/core/vocabulary.ts';
import { api, event, startReceiver, startRuntime, type Api, type Receiver } from './webhooks/harness.ts';

// Events out, end to end through the local runtime: fanOut (as the dispatcher calls it) -> delivery
// items and queue messages -> the SQS emulation -> functions/events/deliver.ts -> real receivers on
// loopback, checked with the Standard Webhooks library itself.

let rt: LocalRuntime;
let a: Api;
const receivers: Receiver[] = [];
const receiver = async (...args: Parameters<typeof startReceiver>) => { const r = await startReceiver(...args); receivers.push(r); return r; };

beforeAll(async () => { rt = await startRuntime(); a = api(rt); }, 60_000);
afterAll(async () => {
  for (const r of receivers) await r.close();
  await rt?.stop();
});
afterEach(() => { clock.now = () => Date.now(); });

async function hook(t: { token: string }, url: string, extra: { events?: string[]; secret?: string } = {}) {
  const r = await a.call('POST', '/integrations', t.token, {
    type: 'webhook', name: 'Orders', config: { url, ...(extra.events ? { events: extra.events } : {}) },
    ...(extra.secret ? { credentials: { secret: extra.secret } } : {}),
  });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return { id: r.body.id as string, secret: (extra.secret ?? r.body.credentials.secret) as string };
}

const deliveries = async (t: { token: string }, id: string, query = '') =>
  (await a.call('GET', `/integrations/${id}/deliveries${query}`, t.token)).body.items as Array<Record<string, any>>;

const integration = async (t: { token: string }, id: string) =>
  ((await a.call('GET', '/integrations', t.token)).body.items as Array<Record<string, any>>).find((i) => i.id === id)!;

/** The queue's retry delays for one delivery run, in seconds (the visibility each failed attempt asked for). */
const delaysAsked = (count: number) => rt.queue.ops.filter((o) => o.op === 'changeVisibility').slice(-count).map((o) => o.seconds);

describe('signatures (Standard Webhooks)', () => {
  it('signs every delivery so that the standardwebhooks verifier accepts it, and refuses it tampered or old', async () => {
    const t = await a.tenant();
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
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, headers)).toThrow(WebhookVerificationError);
    // The same request replayed ten minutes later is refused by the verifier's timestamp tolerance.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 });
    try {
      expect(() => wh.verify(got!.body, headers)).toThrow(/too old/);
    } finally {
      vi.useRealTimers();
    }
    const [d] = await deliveries(t, h.id);
    expect(d).toMatchObject({ eventId: e.id, eventType: 'ticket.created', status: 'succeeded', attempts: 1, lastResponseStatus: 200, lastError: null, nextAttemptAt: null });
  });
});
