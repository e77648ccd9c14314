import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { api, chatOn, startReceiver, type Api, type Receiver } from './webhooks/harness.ts';
import { eventually } from '../support/eventually.ts';

// Order per endpoint, through the whole pipeline: widgets chat over HTTP, the events go through the
// table's stream, the dispatcher and the FIFO delivery queue to receivers on loopback. One tenant's
// receiver is down (its port refuses connections) while the chat goes on, then comes back; another
// tenant's stays up. The retry schedule is compressed 1,000 times (5 min are 0.3 s, 30 min 1.8 s), so
// the first delivery is still waiting out its retries when the receiver returns.

let rt: LocalRuntime;
let a: Api;
const receivers: Receiver[] = [];
beforeAll(async () => {
  process.env.DELIVERY_TIMEOUT_MS = '1000';
  rt = await startLocalRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `webhooks-order-${randomUUID().slice(0, 8)}`,
    allowLoopbackWebhooks: true,
    deliveryTimeScale: 1e-3,
    indexer: false,
  });
  a = api(rt);
}, 60_000);
afterAll(async () => {
  for (const r of receivers) await r.close();
  await rt?.stop();
});

const receiver = async (port?: number) => {
  const r = await startReceiver(() => 200, port);
  receivers.push(r);
  return r;
};
type Delivery = { eventId: string; eventType: string; status: string; attempts: number };
const all = async (t: { token: string }, id: string) =>
  ((await a.call('GET', `/integrations/${id}/deliveries?limit=100`, t.token)).body.items as Delivery[]).sort((x, y) =>
    x.eventId < y.eventId ? -1 : 1,
  );
/** The deliveries of events (not test pings), oldest first. */
const deliveries = async (t: { token: string }, id: string) => (await all(t, id)).filter((d) => d.eventType !== 'ping');
/** The ids a receiver got, each at its first arrival, pings left out. */
const isPing = (x: Receiver['received'][number]) => (JSON.parse(x.body) as { type: string }).type === 'ping';
const firstArrivals = (r: Receiver) => [
  ...new Set(r.received.filter((x) => !isPing(x)).map((x) => String(x.headers['webhook-id']))),
];

describe('deliveries in order for each endpoint', () => {
  it("a receiver down then up gets every event, in event order, the later ones held behind the first; another tenant's endpoint is not held", async () => {
    const gone = await receiver();
    const port = gone.port;
    const steady = await receiver();
    const down = await a.tenant('Down Shop');
    const up = await a.tenant('Up Shop');
    const hook = async (t: { token: string }, url: string) => {
      const r = await a.call('POST', '/integrations', t.token, {
        type: 'webhook',
        name: 'Messages',
        config: { url, events: ['message.created'] },
      });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const hd = await hook(down, gone.url);
    const hu = await hook(up, steady.url);
    await gone.close();

    // Two conversations per tenant, their messages interleaved.
    const conversations = new Map<string, string>();
    for (let n = 0; n < 3; n++) {
      for (const t of [down, up]) {
        for (const c of ['first', 'second']) {
          const key = `${t.tenantId}/${c}`;
          const r = await chatOn(rt, t.widgetKey, '/message', {
            message: `order ${c} ${n}`,
            ...(conversations.has(key) ? { conversationId: conversations.get(key) } : {}),
          });
          expect(r.status).toBe(200);
          conversations.set(key, r.body.conversationId as string);
        }
      }
    }

    // One message.created per stored message (the customer's and the assistant's replies).
    const stored = async (t: { tenantId: string; widgetKey: string }) => {
      let n = 0;
      for (const c of ['first', 'second']) {
        const r = await fetch(`${rt.url}/api/v1/chat/conversations/${conversations.get(`${t.tenantId}/${c}`)}`, {
          headers: { 'x-widget-key': t.widgetKey },
        });
        n += ((await r.json()) as { messages: unknown[] }).messages.length;
      }
      return n;
    };
    const [downCount, upCount] = [await stored(down), await stored(up)];
    expect(downCount).toBeGreaterThanOrEqual(6);

    // Down: the oldest delivery is retried; none after it is attempted before it succeeds.
    let held: Delivery[] = [];
    await eventually(async () => {
      held = await deliveries(down, hd);
      expect(held.length).toBe(downCount);
      expect(held[0]!.attempts).toBeGreaterThanOrEqual(2);
    });
    expect(held.slice(1).map((d) => d.attempts)).toEqual(held.slice(1).map(() => 0));
    // A test ping is not held behind them: it tells whether the endpoint answers now.
    expect((await a.call('POST', `/integrations/${hd}/test`, down.token)).status).toBe(202);
    await eventually(async () => {
      expect((await all(down, hd)).find((d) => d.eventType === 'ping')?.attempts).toBeGreaterThanOrEqual(1);
    });
    expect((await deliveries(down, hd)).slice(1).map((d) => d.attempts)).toEqual(held.slice(1).map(() => 0));
    // Meanwhile the other tenant's endpoint got its events, in order.
    await eventually(async () => {
      const ds = await deliveries(up, hu);
      expect(ds.length).toBe(upCount);
      expect(ds.every((d) => d.status === 'succeeded')).toBe(true);
      expect(firstArrivals(steady)).toEqual(ds.map((d) => d.eventId));
    });

    // Back on the same port: the held deliveries arrive, each once, in event order.
    const back = await receiver(port);
    let final: Delivery[] = [];
    await eventually(
      async () => {
        final = await deliveries(down, hd);
        expect(final.map((d) => d.status)).toEqual(final.map(() => 'succeeded'));
      },
      { timeout: 60_000 },
    );
    expect(final.length).toBe(held.length);
    expect(firstArrivals(back)).toEqual(final.map((d) => d.eventId));
    expect(back.received.filter((x) => !isPing(x))).toHaveLength(final.length);
    // The first one's refused attempts, then the one that succeeded; the others once each.
    expect(final[0]!.attempts).toBeGreaterThan(held[0]!.attempts);
    expect(final.slice(1).every((d) => d.attempts === 1)).toBe(true);
  }, 120_000);
});
