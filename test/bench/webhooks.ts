import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monotonicFactory } from 'ulid';
import { startLocalRuntime } from '../../local/runtime.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:webhooks` (also run by `npm run bench`): events out on this machine, through the
// local runtime (DynamoDB Local and its stream, the dispatcher, the SQS emulation,
// functions/events/deliver.ts) to a receiver on loopback that answers 204.
// 1. Latency of the whole path: from a ticket's PATCH to the receiver's answer for its
//    ticket.updated (the write, the stream poll, the dispatcher's fan-out, the queue, the delivery),
//    one change at a time (p50, p99); and of the delivery alone, from fanOut (what the dispatcher
//    calls) to the receiver.
// 2. Throughput: deliveries per second that one delivery function (one batch of 10 at a time)
//    sustains, draining a queue filled beforehand; and with 4 concurrent invocations.
// 3. Fairness: another tenant's test ping, from POST /integrations/{id}/test to its receiver, alone
//    and while a noisy tenant's 4 webhooks hang (each delivery bounded by its own timeout) with a
//    backlog of its deliveries queued; the noisy p99 should stay within 2x of the quiet one.
// Writes bench-results/webhooks.json.
// Options (env): WEBHOOK_BENCH_PATCHES (default 100), WEBHOOK_BENCH_LATENCY (default 200 events),
// WEBHOOK_BENCH_BACKLOG (default 2000), WEBHOOK_BENCH_PINGS (default 30), WEBHOOK_BENCH_NOISE (default 30 events to each of 4 hanging webhooks).

const PATCH_N = Number(process.env.WEBHOOK_BENCH_PATCHES ?? 100);
const LATENCY_N = Number(process.env.WEBHOOK_BENCH_LATENCY ?? 200);
const BACKLOG = Number(process.env.WEBHOOK_BENCH_BACKLOG ?? 2000);
const PINGS = Number(process.env.WEBHOOK_BENCH_PINGS ?? 30);
const NOISE = Number(process.env.WEBHOOK_BENCH_NOISE ?? 30);

/** The noisy tenant's receiver: takes every request and never answers (closed at the end). */
const hanging = createServer(() => {
  /* never answers */
});
await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
const hangingPort = (hanging.address() as { port: number }).port;

const arrived = new Map<string, number>();
let waiting: { id: string; resolve: (t: number) => void } | null = null;
/** ticket.updated deliveries by the ticket's updatedAt, which the PATCH answer names. */
const updates = new Map<string, (t: number) => void>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(204).end();
    const id = String(req.headers['webhook-id']);
    const t = performance.now();
    arrived.set(id, t);
    if (waiting?.id === id) {
      waiting.resolve(t);
      waiting = null;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      type: string;
      data: { ticket?: { updatedAt?: string } };
    };
    const at = body.type === 'ticket.updated' ? body.data.ticket?.updatedAt : undefined;
    if (at) {
      updates.get(at)?.(t);
      updates.delete(at);
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as { port: number }).port;

process.env.LOG_LEVEL = 'ERROR';
const rt = await startLocalRuntime({ allowLoopbackWebhooks: true });
const { fanOut } = await import('#shared/domain/events-out/deliveries.ts');
const ulid = monotonicFactory();

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const r = await fetch(`${rt.url}/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json() as Promise<Record<string, any>>;
};
const token = await rt.idp.token({ sub: 'bench-owner', email: 'owner@bench.example' });
const onboarded = await call('POST', '/auth/onboard', token, { tenantName: 'Bench' });
const tenantId = onboarded.tenant.id as string;
const quietHook = await call('POST', '/integrations', token, {
  type: 'webhook',
  name: 'Bench',
  config: { url: `http://127.0.0.1:${port}/hook` },
});

const chat = async (path: string, body: unknown) => {
  const r = await fetch(`${rt.url}/api/v1/chat${path}`, {
    method: 'POST',
    headers: { 'x-widget-key': onboarded.widgetKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return r.json() as Promise<Record<string, any>>;
};

/** PATCH a ticket back and forth between open and in_progress; each change's ticket.updated timed to the receiver. */
async function patchToReceiver(n: number): Promise<number[]> {
  const { conversationId } = await chat('/message', { message: 'hello' });
  const { ticketId } = await chat('/escalate', { conversationId, reason: 'bench' });
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await call('PATCH', `/tickets/${ticketId}`, token, { status: i % 2 ? 'open' : 'in_progress' });
    const at = r.ticket.updatedAt as string;
    const got = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ticket.updated for ${at} within 20 s`)), 20_000);
      updates.set(at, (t) => {
        clearTimeout(timer);
        resolve(t);
      });
    });
    ms.push(got - t0);
  }
  return ms;
}

const ticketUpdated = (i: number, tenant = tenantId) => ({
  id: `evt_${ulid()}`,
  type: 'ticket.updated' as const,
  timestamp: new Date().toISOString(),
  tenantId: tenant,
  data: {
    ticket: { id: `tkt_${i}`, status: 'resolved', priority: 'high' },
    changes: { status: { from: 'open', to: 'resolved' } },
  },
});

try {
  // Warm up: handler modules loaded, connections open.
  for (let i = 0; i < 20; i++) await fanOut(ticketUpdated(i));
  await rt.queue.idle();

  const patched = await patchToReceiver(PATCH_N);
  await rt.queue.idle();

  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const e = ticketUpdated(i);
    const got = new Promise<number>((resolve) => {
      waiting = { id: e.id, resolve };
    });
    const t0 = performance.now();
    await fanOut(e);
    latencies.push((await got) - t0);
  }
  await rt.queue.idle();

  const drain = async (concurrency: number) => {
    rt.queue.setConcurrency(concurrency);
    rt.queue.pause();
    const events = Array.from({ length: BACKLOG }, (_, i) => ticketUpdated(i));
    for (let i = 0; i < events.length; i += 50) await Promise.all(events.slice(i, i + 50).map((e) => fanOut(e)));
    const t0 = performance.now();
    rt.queue.resume();
    await rt.queue.idle();
    const seconds = (performance.now() - t0) / 1000;
    const missing = events.filter((e) => !arrived.has(e.id)).length;
    if (missing) throw new Error(`${missing} deliveries did not arrive`);
    return BACKLOG / seconds;
  };
  const one = await drain(1);
  const four = await drain(4);

  /** The quiet tenant's test pings, one at a time: from the POST to the receiver's 2xx. */
  const pings = async (n: number) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await call('POST', `/integrations/${quietHook.id}/test`, token);
      const eventId = r.delivery.eventId as string;
      for (let waited = 0; !arrived.has(eventId); waited += 2) {
        if (waited > 60_000) throw new Error(`ping ${eventId} did not arrive within 60 s`);
        await new Promise((res) => setTimeout(res, 2));
      }
      ms.push(arrived.get(eventId)! - t0);
    }
    return ms;
  };
  await pings(5);
  const quiet = await pings(PINGS);
  const noisyToken = await rt.idp.token({ sub: 'bench-noisy', email: 'noisy@bench.example' });
  const noisy = await call('POST', '/auth/onboard', noisyToken, { tenantName: 'Noisy' });
  for (let i = 0; i < 4; i++) {
    await call('POST', '/integrations', noisyToken, {
      type: 'webhook',
      name: `Hangs ${i}`,
      config: { url: `http://127.0.0.1:${hangingPort}/hook/${i}` },
    });
  }
  for (let i = 0; i < NOISE; i++) await fanOut(ticketUpdated(i, noisy.tenant.id as string));
  const noisyPings = await pings(PINGS);
  const fairness = {
    pings: PINGS,
    noisyDeliveries: NOISE * 4,
    quietMs: { p50: percentile(quiet, 50), p99: percentile(quiet, 99) },
    noisyMs: { p50: percentile(noisyPings, 50), p99: percentile(noisyPings, 99) },
  };
  const ratio = fairness.noisyMs.p99 / fairness.quietMs.p99;

  const json = {
    startedAt: new Date().toISOString(),
    node: process.version,
    patchToReceiverMs: {
      n: PATCH_N,
      p50: percentile(patched, 50),
      p99: percentile(patched, 99),
      max: Math.max(...patched),
    },
    fanOutToReceiverMs: { n: LATENCY_N, p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    deliveriesPerSecond: { oneFunction: one, fourConcurrent: four, backlog: BACKLOG },
    fairness: { ...fairness, ratio, withinTwice: ratio <= 2 },
  };
  const root = fileURLToPath(new URL('../..', import.meta.url));
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results', 'webhooks.json'), JSON.stringify(json, null, 2));
  console.log(`Webhook delivery, local runtime (DynamoDB Local and its stream, SQS emulation, loopback receiver answering 204)
  ticket PATCH -> receiver 2xx (stream poll, dispatcher, queue, delivery; n=${PATCH_N}):  p50 ${fmt(json.patchToReceiverMs.p50, 1)} ms  p99 ${fmt(json.patchToReceiverMs.p99, 1)} ms  max ${fmt(json.patchToReceiverMs.max, 1)} ms
  fanOut -> receiver 2xx, the delivery alone (n=${LATENCY_N}):  p50 ${fmt(json.fanOutToReceiverMs.p50, 1)} ms  p99 ${fmt(json.fanOutToReceiverMs.p99, 1)} ms
  deliveries per second, one delivery function (batches of 10):  ${fmt(one, 0)}/s  (${BACKLOG} queued)
  deliveries per second, 4 concurrent invocations:              ${fmt(four, 0)}/s  (${BACKLOG} queued)
  another tenant's test ping -> receiver 2xx, quiet (n=${PINGS}):  p50 ${fmt(fairness.quietMs.p50, 1)} ms  p99 ${fmt(fairness.quietMs.p99, 1)} ms
  the same while a noisy tenant's ${NOISE * 4} deliveries hang:       p50 ${fmt(fairness.noisyMs.p50, 1)} ms  p99 ${fmt(fairness.noisyMs.p99, 1)} ms  (p99 ${fmt(ratio, 2)}x the quiet one; ${ratio <= 2 ? 'within' : 'NOT within'} 2x)
wrote bench-results/webhooks.json`);
  if (ratio > 2) process.exitCode = 1;
} finally {
  hanging.closeAllConnections();
  await rt.stop();
  receiver.closeAllConnections();
  receiver.close();
  hanging.close();
}
