import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalRuntime } from '../../local/runtime.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:actions` (also run by `npm run bench`): a chat message whose intent calls its
// action (docs/ACTIONS.md), through the local runtime's HTTP server and DynamoDB Local, to an
// endpoint on loopback.
// 1. An endpoint that answers after 100 ms: the chat's time against the same message answered by
//    an intent that calls nothing; the action's overhead (p50) is the difference less the
//    endpoint's own time as it measured it (budget 20 ms, docs/ARCHITECTURE.md); also
//    `metadata.action.latencyMs` less that.
// 2. An endpoint that never answers, `timeoutMs` 500: every answer within timeoutMs + 300 ms.
// Writes bench-results/actions.json. Options (env): ACTION_BENCH_N (default 60 messages each),
// ACTION_BENCH_TIMEOUTS (default 10).

const N = Number(process.env.ACTION_BENCH_N ?? 60);
const TIMEOUTS = Number(process.env.ACTION_BENCH_TIMEOUTS ?? 10);
const ENDPOINT_MS = 100;
const TIMEOUT_MS = 500;

/** The endpoint's own time for each call, from the request read to the answer sent (a late timer counts as its own). */
const endpointMs: number[] = [];
const answering = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const started = performance.now();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { stock: { count: 7 } } }));
      endpointMs.push(performance.now() - started);
    }, ENDPOINT_MS);
  });
});
const hanging = createServer(() => {
  /* never answers */
});
for (const s of [answering, hanging]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
const urlOf = (s: typeof answering) => `http://127.0.0.1:${(s.address() as { port: number }).port}/stock`;

process.env.LOG_LEVEL = 'ERROR';
const rt = await startLocalRuntime({ allowLoopbackWebhooks: true, smtpPort: false });
const { setClock } = await import('#shared/core/clock.ts');

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const r = await fetch(`${rt.url}/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await r.json()) as Record<string, any>;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
};

try {
  const token = await rt.idp.token({ sub: 'bench-actions', email: 'owner@actions.example' });
  const t = await call('POST', '/auth/onboard', token, { tenantName: 'Actions bench' });
  // Every message opens a conversation: the per-address window is raised for one client sending them all.
  await call('PUT', '/settings', token, { config: { widget: { newConversationsPerMinute: 10_000 } } });
  const fast = await call('POST', '/integrations', token, {
    type: 'action',
    name: 'Answers in 100 ms',
    config: { url: urlOf(answering) },
  });
  const slow = await call('POST', '/integrations', token, {
    type: 'action',
    name: 'Never answers',
    config: { url: urlOf(hanging), timeoutMs: TIMEOUT_MS },
  });
  const intent = (name: string, word: string, extra: Record<string, unknown>) =>
    call('POST', '/intents', token, {
      name,
      trainingPhrases: [
        `is the ${word} SKU-1001 in stock`,
        `do you have ${word} SKU-2002`,
        `${word} stock for SKU-3003`,
      ],
      entities: [{ name: 'sku', type: 'regex', pattern: '\\bSKU-(\\d{4})\\b', required: true }],
      ...extra,
    });
  await intent('kettle_stock', 'kettle', {
    response: 'SKU {{sku}}: {{data.stock.count}} in stock.',
    action: 'call',
    integrationId: fast.id,
  });
  await intent('teapot_stock', 'teapot', { response: 'SKU {{sku}}: ask in the shop.' });
  await intent('mug_stock', 'mug', {
    response: 'SKU {{sku}}: {{data.stock.count}} in stock.',
    action: 'call',
    integrationId: slow.id,
  });

  const chat = async (message: string) => {
    const started = performance.now();
    const r = await fetch(`${rt.url}/api/v1/chat/message`, {
      method: 'POST',
      headers: { 'x-widget-key': t.widgetKey, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    const body = (await r.json()) as Record<string, any>;
    const ms = performance.now() - started;
    if (r.status !== 200) throw new Error(`chat: ${r.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  const expectIntent = (b: Record<string, any>, name: string) => {
    if (b.metadata.intentDetected !== name)
      throw new Error(`expected ${name}, got ${b.metadata.intentDetected}: ${b.message?.content}`);
  };

  // Warm: the tenant's model, the endpoint's connection, the secret's decryption.
  for (let i = 0; i < 5; i++) {
    await chat('is the kettle SKU-1234 in stock');
    await chat('is the teapot SKU-1234 in stock');
  }

  const plain: number[] = [];
  const acted: number[] = [];
  const callMs: number[] = [];
  // Interleaved, so that the machine's noise falls on both alike.
  for (let i = 0; i < N; i++) {
    const a = await chat('is the teapot SKU-1234 in stock');
    expectIntent(a.body, 'teapot_stock');
    plain.push(a.ms);
    const b = await chat('is the kettle SKU-1234 in stock');
    expectIntent(b.body, 'kettle_stock');
    if (b.body.metadata.action.status !== 'ok')
      throw new Error(`the action answered ${JSON.stringify(b.body.metadata.action)}`);
    acted.push(b.ms);
    callMs.push(b.body.metadata.action.latencyMs as number);
  }
  const own = endpointMs.slice(-N);
  const overhead = percentile(acted, 50) - percentile(plain, 50) - percentile(own, 50);
  const callOverhead = percentile(callMs, 50) - percentile(own, 50);

  const timedOut: number[] = [];
  for (let i = 0; i < TIMEOUTS; i++) {
    // Past the breaker's 60 s each time: every message calls (and waits out) the endpoint.
    const skew = (i + 1) * 61_000;
    setClock({ now: () => Date.now() + skew });
    const r = await chat('is the mug SKU-1234 in stock');
    expectIntent(r.body, 'mug_stock');
    if (r.body.metadata.action.status !== 'timeout')
      throw new Error(`expected a timeout, got ${JSON.stringify(r.body.metadata.action)}`);
    timedOut.push(r.ms);
  }
  const worst = Math.max(...timedOut);

  const json = {
    startedAt: new Date().toISOString(),
    node: process.version,
    n: N,
    endpointMs: ENDPOINT_MS,
    chatWithoutActionMs: { p50: percentile(plain, 50), p99: percentile(plain, 99) },
    chatWithActionMs: { p50: percentile(acted, 50), p99: percentile(acted, 99) },
    endpointOwnMs: { p50: percentile(own, 50) },
    overheadP50Ms: overhead,
    callLatencyP50Ms: percentile(callMs, 50),
    callOverheadP50Ms: callOverhead,
    overheadWithinBudget: overhead <= 20,
    timeout: {
      timeoutMs: TIMEOUT_MS,
      n: TIMEOUTS,
      p50: percentile(timedOut, 50),
      max: worst,
      withinTimeoutPlus300: worst <= TIMEOUT_MS + 300,
    },
  };
  const root = fileURLToPath(new URL('../..', import.meta.url));
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results', 'actions.json'), JSON.stringify(json, null, 2));
  console.log(`Actions, local runtime (HTTP server, DynamoDB Local, an endpoint on loopback; n=${N} each, interleaved)
  chat, an intent that calls nothing:                p50 ${fmt(json.chatWithoutActionMs.p50, 1)} ms  p99 ${fmt(json.chatWithoutActionMs.p99, 1)} ms
  chat, an intent whose action answers in ${ENDPOINT_MS} ms:   p50 ${fmt(json.chatWithActionMs.p50, 1)} ms  p99 ${fmt(json.chatWithActionMs.p99, 1)} ms
  the endpoint's own time p50 ${fmt(json.endpointOwnMs.p50, 1)} ms; the action's overhead over it (p50):  ${fmt(overhead, 1)} ms  (budget 20 ms: ${json.overheadWithinBudget ? 'ok' : 'OVER'})
  metadata.action.latencyMs p50 ${fmt(json.callLatencyP50Ms, 0)} ms (the call itself, ${fmt(callOverhead, 0)} ms over the endpoint's)
  chat, an action that never answers (timeoutMs ${TIMEOUT_MS}, n=${TIMEOUTS}):  p50 ${fmt(json.timeout.p50, 1)} ms  max ${fmt(worst, 1)} ms  (within ${TIMEOUT_MS + 300} ms: ${json.timeout.withinTimeoutPlus300 ? 'ok' : 'OVER'})
wrote bench-results/actions.json`);
  if (!json.overheadWithinBudget || !json.timeout.withinTimeoutPlus300) process.exitCode = 1;
} finally {
  hanging.closeAllConnections();
  answering.closeAllConnections();
  await rt.stop();
  answering.close();
  hanging.close();
}
