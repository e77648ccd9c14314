import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FUNCTION_MEMORY_MB } from '#infra/memory.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { scheduledJobs } from '#shared/edge/triggers.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { ASSUMPTIONS, bill, provisioned, type Line } from './cost/bill.ts';
import { runDay } from './cost/day.ts';
import { Meter } from './cost/meter.ts';
import { PRICES_READ, VENDORS } from './cost/prices.ts';
import { fmt, percentile } from './perf/util.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// `npm run bench:cost`: what a conversation costs on AWS at list prices. A support day runs
// through the local runtime (test/bench/cost/day.ts); every function invocation, DynamoDB's
// consumed capacity, the queues' requests, the mail and the log bytes are counted
// (cost/meter.ts) and priced (cost/bill.ts, cost/prices.ts). Writes bench-results/cost.json.
// Options (env): COST_BENCH_CONVERSATIONS (default 30), COST_BENCH_ECHO=1 (show the functions' logs).

const CONVERSATIONS = Number(process.env.COST_BENCH_CONVERSATIONS ?? 30);
const GOAL_PER_1000 = 0.1;
const VOLUMES = [10_000, 1_000_000];
/** Init over Node's own start, measured in fresh processes (docs/SIZING.md); used for the cold-start line. */
const INIT_MS = { encoder: 1000, other: 150 };

const started = performance.now();
// The report and the progress lines go out beside the capture of the functions' logs (meter.captureLogs).
const print = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
const log = (m: string) => print.err(`[cost ${((performance.now() - started) / 1000).toFixed(0)}s] ${m}\n`);

// As deployed: INFO logs, metrics printed (CloudWatch ingests both), consumed capacity asked for.
Object.assign(process.env, {
  DYNAMODB_CONSUMED_CAPACITY: '1',
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  LOG_LEVEL: 'INFO',
  AWS_LAMBDA_LOG_LEVEL: 'INFO',
  DELIVERY_TIME_SCALE: process.env.DELIVERY_TIME_SCALE ?? '0.01',
});
const meter = new Meter();
meter.captureLogs(process.env.COST_BENCH_ECHO === '1');
const say = (s = '') => print.out(`${s}\n`);

const tableName = `bench-cost-${Date.now()}`;
const rt = await startLocalRuntime({
  tableName,
  allowLoopbackWebhooks: true,
  schedule: false,
  trustVerdictHeader: true,
  onInvoke: meter.onInvoke,
});
const ddb = new DynamoDBClient({
  endpoint: rt.dynamodbEndpoint,
  region: 'us-east-1',
  credentials: localDatabaseCredentials(tableName),
});
const tableBytes = async () =>
  (await ddb.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableSizeBytes ?? 0;

log(`a day of ${CONVERSATIONS} conversations`);
const bytesBefore = await tableBytes();
const facts = await runDay(
  rt,
  meter,
  { conversations: CONVERSATIONS, handover: 0.1, email: 0.1, shopMs: ASSUMPTIONS.shopMs },
  log,
);
const storageBytes = (await tableBytes()) - bytesBefore;
const jobs: Array<{ handler: string; everyMinutes: number; ms: number }> = [];
for (const j of scheduledJobs) {
  const t = performance.now();
  await rt.runJob(j.handler);
  jobs.push({ handler: j.handler, everyMinutes: j.everyMinutes, ms: performance.now() - t });
}
const encoders = new Set(routes.filter((r) => r.encoder).map((r) => r.handler));
const b = bill({
  meter,
  facts,
  storageBytes,
  jobs,
  functions: Object.keys(FUNCTION_MEMORY_MB).length,
  initMs: (h) => (encoders.has(h) ? INIT_MS.encoder : INIT_MS.other),
});
await rt.stop();
meter.stopCapture();

// ---- the report -----------------------------------------------------------------------------------
const usd = (x: number, digits = 4) => `$${x.toFixed(digits)}`;
const sum = (ls: Line[]) => ls.reduce((a, l) => a + l.usd, 0);
const perConversation = sum(b.perConversation);
const per1000 = perConversation * 1000;
const resolvedShare = facts.resolvedByAssistant / facts.conversations;
const perResolution = perConversation / resolvedShare;
const mark = (l: Line) => (l.estimated ? ' (estimated)' : '');

say(`What a conversation costs on AWS (us-east-1 list prices, ${PRICES_READ})`);
say(
  `A day of ${facts.conversations} conversations: ${facts.widget} in the widget (${facts.handedOver} handed to a person, ${facts.resolvedByAssistant} closed by the assistant), ` +
    `${facts.emailThreads} email threads; ${facts.customerMessages} customer messages, ${facts.agentReplies} agent replies, ` +
    `${facts.actionCalls} action calls (the shop's order endpoint answering in ${ASSUMPTIONS.shopMs} ms, an assumption), ` +
    `${facts.webhookDeliveries} webhook deliveries, ${facts.mailOut} mails out. Machine shared with other work: durations are noisy.`,
);
say();
say('Per conversation, every item:');
for (const l of [...b.perConversation].sort((x, y) => y.usd - x.usd)) {
  if (l.usd === 0 && !l.item.startsWith('DynamoDB Streams') && !l.item.startsWith('KMS')) continue;
  say(
    `  ${l.item.padEnd(44)} ${usd(l.usd * 1000, 5).padStart(10)} /1000  ${l.quantity}${mark(l)}${l.note ? `; ${l.note}` : ''}`,
  );
}
say();
say(
  `Cost per 1,000 conversations: ${usd(per1000)} (goal ${usd(GOAL_PER_1000, 2)}: ${per1000 <= GOAL_PER_1000 ? 'met' : 'OVER'})`,
);
say(
  `Cost per conversation resolved without a person: ${usd(perResolution, 6)} (all the day's cost over the ${facts.resolvedByAssistant} the assistant closed)`,
);
say();
say('Top five items:');
const top = [...b.perConversation].sort((x, y) => y.usd - x.usd).slice(0, 5);
for (const l of top)
  say(
    `  ${l.item.padEnd(44)} ${usd(l.usd * 1000, 5)} per 1,000 (${fmt((l.usd / perConversation) * 100, 0)} %)${mark(l)}`,
  );
say();
say('DynamoDB units by call and item (per conversation; kind of key without its ids):');
const byItem = [...meter.byItem].sort((x, y) => y[1].write + y[1].read / 5 - (x[1].write + x[1].read / 5));
for (const [k, u] of byItem.slice(0, 12))
  say(
    `  ${k.padEnd(60)} ${(u.write / facts.conversations).toFixed(1).padStart(6)} WRU ${(u.read / facts.conversations).toFixed(1).padStart(6)} RRU  ${(u.calls / facts.conversations).toFixed(1)} calls`,
  );
say();
say('Against what teams pay elsewhere:');
for (const v of VENDORS) {
  const ours =
    v.per === 'resolution' ? perResolution : perConversation / (facts.customerMessages / facts.conversations);
  const theirs = 'upTo' in v ? `$${v.usd.toFixed(2)}-${v.upTo.toFixed(2)}` : `$${v.usd}`;
  say(
    `  ${v.name.padEnd(30)} ${theirs} per ${v.per}; here ${usd(ours, 6)}: about ${Math.round(v.usd / ours).toLocaleString('en-US')} times less`,
  );
}
say();
const monthlyRows = VOLUMES.map((volume) => {
  const lines = b.monthly(volume);
  const variable = perConversation * volume;
  const fixed = sum(lines);
  return { volume, variable, fixed, total: variable + fixed, lines };
});
for (const m of monthlyRows) {
  say(
    `A month of ${m.volume.toLocaleString('en-US')} conversations: ${usd(m.total, 2)} (${usd(m.variable, 2)} per conversation's work, ${usd(m.fixed, 2)} by the month; ${usd((m.total / m.volume) * 1000)} per 1,000)`,
  );
  for (const l of m.lines.sort((x, y) => y.usd - x.usd))
    say(`    ${l.item.padEnd(40)} ${usd(l.usd, 2).padStart(9)}  ${l.quantity}${mark(l)}`);
}
say();
const pc = provisioned(b.chat, 1_000_000);
say(
  `Chat function at 1,000,000 conversations a month (${b.chat.invocationsPerConversation.toFixed(1)} answers each, ${b.chat.meanMs.toFixed(0)} ms mean at ${b.chat.memoryMb} MB):`,
);
say(
  `  mean concurrency ${pc.meanConcurrency.toFixed(3)}; on demand ${usd(pc.onDemand, 2)} a month; provisioned (${pc.instances} for a peak of 10x the mean) ${usd(pc.provisioned, 2)} a month`,
);
say(
  `  provisioned pays once its instances are busy ${fmt(pc.breakEvenUtilisation * 100, 0)} % of the time: one instance at about ${Math.round(pc.breakEvenConversations).toLocaleString('en-US')} conversations a month`,
);
say();
const estimated = [...b.perConversation, ...monthlyRows[0]!.lines].filter((l) => l.estimated).map((l) => l.item);
say(`Estimated, not measured: ${estimated.join('; ')}. Assumptions in test/bench/cost/bill.ts (ASSUMPTIONS).`);
log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const durations = new Map<string, number[]>();
for (const i of meter.invocations) durations.set(i.handler, [...(durations.get(i.handler) ?? []), i.ms]);
const root = fileURLToPath(new URL('../..', import.meta.url));
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(
  join(root, 'bench-results', 'cost.json'),
  JSON.stringify(
    {
      pricesRead: PRICES_READ,
      assumptions: ASSUMPTIONS,
      facts,
      storageBytesPerConversation: b.storageBytesPerConversation,
      per1000,
      perResolution,
      goalPer1000: GOAL_PER_1000,
      perConversation: b.perConversation,
      monthly: monthlyRows,
      provisioned: pc,
      functions: Object.fromEntries(
        [...durations].map(([h, xs]) => [h, { n: xs.length, p50ms: percentile(xs, 50), p99ms: percentile(xs, 99) }]),
      ),
    },
    null,
    2,
  ),
);
process.exit(0);
