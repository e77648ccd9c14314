import { createServer } from 'node:http';
import { monotonicFactory } from 'ulid';
import { startLocalRuntime } from '../../bin/local/server.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:webhooks`: events out on this machine, through the local runtime (DynamoDB Local,
// the SQS emulation, functions/events/deliver.ts) to a receiver on loopback that answers 204.
// 1. Latency: from fanOut (what the dispatcher calls for a ticket change) to the receiver's answer,
//    one event at a time (p50, p99).
// 2. Throughput: deliveries per second that one delivery function (one batch of 10 at a time)
//    sustains, draining a queue filled beforehand; and with 4 concurrent invocations.
// Options (env): WEBHOOK_BENCH_LATENCY (default 200 events), WEBHOOK_BENCH_BACKLOG (default 2000).

const LATENCY_N = Number(process.env.WEBHOOK_BENCH_LATENCY ?? 200);
const BACKLOG = Number(process.env.WEBHOOK_BENCH_BACKLOG ?? 2000);

const arrived = new Map<string, number>();
let waiting: { id: string; resolve: (t: number) => void } | null = null;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(204).end();
    const id = String(req.headers['webhook-id']);
    const t = performance.now();
    arrived.set(id, t);
    if (waiting?.id === id) { waiting.resolve(t); waiting = null; }
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as { port: number }).port;

process.env.LOG_LEVEL = 'ERROR';
const rt = await startLocalRuntime({ allowLoopbackWebhooks: true });
const { fanOut } = await import('#shared/domain/deliveries.ts');
const ulid = monotonicFactory();

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const r = await fetch(`${rt.url}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json() as Promise<Record<string, any>>;
};
const token = await rt.idp.token({ sub: 'bench-owner', email: 'owner@bench.example' });
const tenantId = (await call('POST', '/auth/onboard', token, { tenantName: 'Bench' })).tenant.id as string;
await call('POST', '/integrations', token, { type: 'webhook', name: 'Bench', config: { url: `http://127.0.0.1:${port}/hook` } });

const ticketUpdated = (i: number) => ({
  id: `evt_${ulid()}`, type: 'ticket.updated' as const, timestamp: new Date().toISOString(), tenantId,
  data: { ticket: { id: `tkt_${i}`, status: 'resolved', priority: 'high' }, changes: { status: { from: 'open', to: 'resolved' } } },
});

try {
  // Warm up: handler modules loaded, connections open.
  for (let i = 0; i < 20; i++) await fanOut(ticketUpdated(i));
  await rt.queue.idle();

  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const e = ticketUpdated(i);
    const got = new Promise<number>((resolve) => { waiting = { id: e.id, resolve }; });
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

  console.log(`Webhook delivery, local runtime (DynamoDB Local, SQS emulation, loopback receiver answering 204)
  fanOut -> receiver 2xx, one event at a time (n=${LATENCY_N}):  p50 ${fmt(percentile(latencies, 50), 1)} ms  p99 ${fmt(percentile(latencies, 99), 1)} ms
  deliveries per second, one delivery function (batches of 10):  ${fmt(one, 0)}/s  (${BACKLOG} queued)
  deliveries per second, 4 concurrent invocations:              ${fmt(four, 0)}/s  (${BACKLOG} queued)`);
} finally {
  await rt.stop();
  receiver.closeAllConnections();
  receiver.close();
}
