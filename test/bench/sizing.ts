import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { DEPLOYED_BUNDLE } from './perf/bundles.ts';
import { FUNCTION_MEMORY_MB, memoryOf } from '#infra/memory.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { liveRoutes, scheduledJobs } from '#shared/edge/triggers.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { ASSUMPTIONS } from './cost/bill.ts';
import { runDay } from './cost/day.ts';
import { Meter } from './cost/meter.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:sizing`: what each function needs, to size its memory (infra/memory.ts).
// 1. A short support day through the local runtime (test/bench/cost/day.ts) records each
//    function's durations (p50, p99) and keeps the first event each one got.
// 2. Each function, bundled as deployed, runs in a fresh Node.js process: its init (the import)
//    is timed, then the event of its slowest call in the day is handled three times; its peak is
//    the largest RSS after init and after each call (Lambda's "Max Memory Used" is the same kind
//    of figure).
//    Functions the day never calls are imported only (their peak is their init's).
// Prints docs/SIZING.md's table (and writes bench-results/sizing.json). Options (env):
// SIZING_CONVERSATIONS (default 10); SIZING_ONLY=a/b,c/d measures only those functions, without
// the day (a scheduled job among them is run once for its event; the others are imported only),
// and writes no file.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'bench-results', 'sizing-bundles');
const log = (m: string) => process.stderr.write(`[sizing ${(performance.now() / 1000).toFixed(0)}s] ${m}\n`);

const meter = new Meter();
const samples = new Map<string, unknown>();
const durations = new Map<string, number[]>();
Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'ERROR', DELIVERY_TIME_SCALE: '0.01' });
const rt = await startLocalRuntime({
  tableName: `bench-sizing-${Date.now()}`,
  allowLoopbackWebhooks: true,
  schedule: false,
  trustVerdictHeader: true,
  onInvoke: (handler, event, took) => {
    meter.onInvoke(handler, event, took);
    // The slowest call's event: the heaviest path a function took in the day.
    const xs = durations.get(handler) ?? [];
    if (!samples.has(handler) || took.ms > Math.max(...xs)) samples.set(handler, JSON.parse(JSON.stringify(event)));
    durations.set(handler, [...xs, took.ms]);
  },
});
const only = process.env.SIZING_ONLY?.split(',').map((h) => h.trim());
if (!only) {
  await runDay(
    rt,
    meter,
    {
      conversations: Number(process.env.SIZING_CONVERSATIONS ?? 10),
      handover: 0.1,
      email: 0.1,
      shopMs: ASSUMPTIONS.shopMs,
    },
    log,
  );
  for (const job of ['jobs/retention', 'jobs/purge-tenants', 'jobs/resolutions']) await rt.runJob(job);
} else {
  for (const job of only.filter((h) => scheduledJobs.some((j) => j.handler === h))) await rt.runJob(job);
}

const handlers = Object.keys(FUNCTION_MEMORY_MB).filter((h) => !only || only.includes(h));
log(`bundling ${handlers.length} functions as deployed`);
rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, 'assets'), { recursive: true });
await build({
  ...DEPLOYED_BUNDLE,
  absWorkingDir: ROOT,
  outdir: OUT,
  entryPoints: Object.fromEntries(handlers.map((h) => [h, join(ROOT, 'functions', `${h}.ts`)])),
});
copyFileSync(join(ROOT, 'shared/nlu/encoder/assets/glove-30k.bin'), join(OUT, 'assets', 'glove-30k.bin'));

interface Fresh {
  initMs: number;
  initRssMb: number;
  peakRssMb: number;
  handled: number;
  tried: boolean;
}
/** The function in a fresh process: import timed, the event handled three times, peak RSS. */
function fresh(handler: string, event: unknown): Fresh {
  const script = `
    const t = performance.now();
    const { handler } = await import(${JSON.stringify(pathToFileURL(join(OUT, `${handler}.mjs`)).href)});
    const initMs = performance.now() - t;
    const initRssMb = process.memoryUsage().rss / 2 ** 20;
    const event = process.env.SIZING_EVENT ? JSON.parse(process.env.SIZING_EVENT) : null;
    let handled = 0, peakRssMb = initRssMb;
    for (let i = 0; event && i < 3; i++) {
      try { await handler(structuredClone(event), { functionName: 'sizing', awsRequestId: 'sizing-' + i, getRemainingTimeInMillis: () => 10000 }); handled++; } catch {}
      peakRssMb = Math.max(peakRssMb, process.memoryUsage().rss / 2 ** 20);
    }
    process.stdout.write('\\nSIZING ' + JSON.stringify({ initMs, initRssMb, peakRssMb, handled, tried: !!event }) + '\\n');
    process.exit(0);`;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    env: {
      ...process.env,
      SIZING_EVENT: event === undefined ? '' : JSON.stringify(event),
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    },
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = out.split('\n').find((l) => l.startsWith('SIZING '));
  if (!line) throw new Error(`${handler}: the fresh process said nothing`);
  return JSON.parse(line.slice(7)) as Fresh;
}

const encoders = new Set(
  routes
    .filter((r) => r.encoder)
    .map((r) => r.handler)
    .concat('events/index-content'),
);
const onPersonsPath = (h: string) =>
  routes.some((r) => r.handler === h) ||
  liveRoutes.some((r) => r.handler === h) ||
  ['events/dispatch', 'events/deliver', 'email/receive', 'email/send'].includes(h);
const STEPS = [256, 512, 1024, 1536, 2048];
/**
 * The rule: twice the measured peak, at least 512 MB on a person's path (Lambda's CPU share
 * grows with memory: 0.29 vCPU at 512 MB keeps init and a request's work short), at least
 * 256 MB in the background, and for the encoder's functions at least 1,536 MB (0.87 vCPU:
 * the embedding is CPU-bound and a warm answer's budget is 40 ms).
 */
function sizeOf(h: string, peakMb: number): { mb: number; why: string } {
  const floor = encoders.has(h) ? 1536 : onPersonsPath(h) ? 512 : 256;
  const mb = STEPS.find((s) => s >= Math.max(floor, 2 * peakMb)) ?? 3008;
  const why =
    mb > floor
      ? `twice the peak (${fmt(peakMb, 0)} MB)`
      : encoders.has(h)
        ? 'the encoder: CPU share for embedding'
        : onPersonsPath(h)
          ? 'a person waits: 512 MB for CPU share'
          : 'background: twice the peak fits 256 MB';
  return { mb, why };
}

const rows: Array<{
  handler: string;
  given: number;
  proposed: number;
  why: string;
  peakRssMb: number;
  initRssMb: number;
  initMs: number;
  p50: number | null;
  p99: number | null;
  n: number;
  handled: number;
  tried: boolean;
}> = [];
for (const h of handlers) {
  const f = fresh(h, samples.get(h));
  const xs = durations.get(h) ?? [];
  const { mb, why } = sizeOf(h, f.peakRssMb);
  rows.push({
    handler: h,
    tried: f.tried,
    given: memoryOf(h),
    proposed: mb,
    why,
    peakRssMb: f.peakRssMb,
    initRssMb: f.initRssMb,
    initMs: f.initMs,
    p50: xs.length ? percentile(xs, 50) : null,
    p99: xs.length ? percentile(xs, 99) : null,
    n: xs.length,
    handled: f.handled,
  });
  log(
    `${h}: init ${fmt(f.initMs, 0)} ms, peak ${fmt(f.peakRssMb, 0)} MB${f.tried ? ` (${f.handled} of 3 events handled)` : ' (import only)'}`,
  );
}
await rt.stop();
rmSync(OUT, { recursive: true, force: true });

const ms = (x: number | null) => (x === null ? '-' : fmt(x, 0));
process.stdout.write(
  [
    '| Function | Memory (MB) | Peak RSS (MB) | Init (ms) | p50 (ms) | p99 (ms) | Calls | Why |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| \`${r.handler}\` | ${r.given} | ${fmt(r.peakRssMb, 0)}${r.tried ? '' : '*'} | ${fmt(r.initMs, 0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.n} | ${r.why}${r.proposed !== r.given ? ` (rule says ${r.proposed})` : ''} |`,
    ),
    '',
  ].join('\n'),
);
if (!only) {
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'sizing.json'), JSON.stringify(rows, null, 2));
}
process.exit(0);
