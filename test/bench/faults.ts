import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { startLocalRuntime } from '../../bin/local/server.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:faults`: the service under a database fault, through the local runtime.
// DynamoDB Local is stopped (SIGSTOP) for FAULT_MS during steady chat traffic from several tenants
// (CLIENTS customers, each sending a message every PACE_MS: a few hundred a minute), then resumed.
// Measured: every request's answer and time; what the outage got (503 with Retry-After, never
// 500); after recovery, that every message answered 200 is stored exactly once and that no
// conversation is half-written (its counters match the messages stored).
// Not covered here yet: a webhook receiver down, kill -9 of the runtime with --persist, a Lambda
// timeout mid-transaction (see docs/BENCHMARKS.md).
// Writes bench-results/faults.json.

const TENANTS = Number(process.env.FAULTS_TENANTS ?? 4);
const CLIENTS = Number(process.env.FAULTS_CLIENTS ?? 12);
const PACE_MS = Number(process.env.FAULTS_PACE_MS ?? 1000);
const BEFORE_MS = Number(process.env.FAULTS_BEFORE_MS ?? 8000);
const FAULT_MS = Number(process.env.FAULTS_FAULT_MS ?? 5000);
const AFTER_MS = Number(process.env.FAULTS_AFTER_MS ?? 12000);
/** The deployed functions' timeout: past it API Gateway, not the service, would answer. */
const TIMEOUT_MS = 10_000;

const TABLE = `bench-faults-${randomUUID().slice(0, 8)}`;
const rt = await startLocalRuntime({ tableName: TABLE, stream: false });
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: rt.dynamodbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
const dynamo = rt.dynamo!.process;

interface Sent { tenant: number; text: string; conversationId: string | null; status: number; ms: number; retryAfter: string | null; phase: string }
const sent: Sent[] = [];

async function post(path: string, body: unknown, headers: Record<string, string>) {
  const start = performance.now();
  try {
    const res = await fetch(rt.url + path, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, ms: performance.now() - start, retryAfter: res.headers.get('retry-after') };
  } catch {
    // No answer within the function timeout.
    return { status: 0, body: null, ms: performance.now() - start, retryAfter: null };
  }
}

const tenants: Array<{ tenantId: string; widgetKey: string }> = [];
for (let i = 0; i < TENANTS; i++) {
  const token = await rt.idp.token({ sub: `faults-${i}-${randomUUID()}`, email: `faults-${i}@example.com` });
  const r = await post('/api/v1/admin/auth/onboard', { tenantName: `Faults ${i}` }, { authorization: `Bearer ${token}` });
  // One source address sends for every customer here: lift the per-address new-conversation limit.
  await fetch(`${rt.url}/api/v1/admin/settings`, {
    method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ config: { widget: { newConversationsPerMinute: 10000 } } }),
  });
  tenants.push({ tenantId: r.body.tenant.id, widgetKey: r.body.widgetKey });
}

// Warm: every tenant's model and caches loaded before the clock starts.
for (const t of tenants) for (let i = 0; i < 3; i++) await post('/api/v1/chat/message', { message: 'warming up' }, { 'x-widget-key': t.widgetKey });

let phase = 'before';
let running = true;
async function customer(n: number) {
  const t = n % TENANTS;
  let conversationId: string | null = null;
  let count = 0;
  while (running) {
    const next = performance.now() + PACE_MS;
    const text = `message ${n}-${count++}-${randomUUID().slice(0, 8)}`;
    const at = phase;
    const r = await post('/api/v1/chat/message', { message: text, ...(conversationId ? { conversationId } : {}) }, { 'x-widget-key': tenants[t]!.widgetKey });
    if (r.status === 200) conversationId ??= r.body.conversationId;
    // A new conversation every 20 messages keeps each under the per-minute limit.
    if (count % 20 === 0) conversationId = null;
    sent.push({ tenant: t, text, conversationId: r.status === 200 ? r.body.conversationId : conversationId, status: r.status, ms: r.ms, retryAfter: r.retryAfter, phase: at });
    await new Promise((res) => setTimeout(res, Math.max(0, next - performance.now())));
  }
}

const started = performance.now();
const clients = Array.from({ length: CLIENTS }, (_, i) => customer(i));
await new Promise((r) => setTimeout(r, BEFORE_MS));
phase = 'fault';
dynamo.kill('SIGSTOP');
await new Promise((r) => setTimeout(r, FAULT_MS));
dynamo.kill('SIGCONT');
phase = 'after';
await new Promise((r) => setTimeout(r, AFTER_MS));
running = false;
await Promise.all(clients);
const seconds = (performance.now() - started) / 1000;

// After recovery: every 200'd message stored exactly once; every conversation whole.
const conversations = new Map<string, number>();
for (const s of sent) if (s.conversationId) conversations.set(s.conversationId, s.tenant);
let storedOnce = 0;
const missingOrDouble: string[] = [];
let halfWritten = 0;
for (const [conversationId, t] of conversations) {
  const pk = keys.conversationPartition(tenants[t]!.tenantId, conversationId);
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const q = await ddb.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': pk }, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(q.Items ?? []));
    start = q.LastEvaluatedKey;
  } while (start);
  const messages = items.filter((i) => (i.sk as string).startsWith('MSG#'));
  const conv = (await ddb.send(new GetCommand({ TableName: TABLE, Key: keys.conversation(tenants[t]!.tenantId, conversationId), ConsistentRead: true }))).Item;
  if (!conv || conv.messageCount !== messages.length || conv.userMessageCount !== messages.filter((m) => m.role === 'user').length) halfWritten++;
  for (const s of sent.filter((x) => x.conversationId === conversationId && x.status === 200)) {
    const n = messages.filter((m) => m.role === 'user' && m.content === s.text).length;
    if (n === 1) storedOnce++; else missingOrDouble.push(`${s.text}: ${n}`);
  }
}

const ok = sent.filter((s) => s.status === 200);
const refused = sent.filter((s) => s.status === 503);
const byStatus = Object.fromEntries([...new Set(sent.map((s) => s.status))].sort().map((st) => [st, sent.filter((s) => s.status === st).length]));
const msOf = (xs: Sent[]) => xs.map((s) => s.ms);
const result = {
  setup: { tenants: TENANTS, customers: CLIENTS, paceMs: PACE_MS, faultMs: FAULT_MS, seconds: Number(seconds.toFixed(1)), perMinute: Math.round(sent.length / seconds * 60) },
  requests: sent.length, byStatus,
  answeredWithinTimeout: sent.filter((s) => s.status !== 0 && s.ms < TIMEOUT_MS).length,
  refused503WithRetryAfter: refused.filter((s) => Number(s.retryAfter) > 0).length, refused503: refused.length,
  serverErrorsOtherThan503: sent.filter((s) => s.status >= 500 && s.status !== 503).length,
  latencyMs: {
    before: { p50: percentile(msOf(sent.filter((s) => s.phase === 'before')), 50), p99: percentile(msOf(sent.filter((s) => s.phase === 'before')), 99) },
    fault: { p50: percentile(msOf(sent.filter((s) => s.phase === 'fault')), 50), max: Math.max(...msOf(sent.filter((s) => s.phase === 'fault'))) },
    after: { p50: percentile(msOf(sent.filter((s) => s.phase === 'after')), 50), p99: percentile(msOf(sent.filter((s) => s.phase === 'after')), 99) },
  },
  ok200: ok.length, storedExactlyOnce: storedOnce, missingOrDouble, conversations: conversations.size, halfWrittenConversations: halfWritten,
};

console.log(`bench:faults: DynamoDB Local stopped ${FAULT_MS} ms during ${result.setup.perMinute} messages/min from ${CLIENTS} customers of ${TENANTS} tenants (${result.setup.seconds} s)`);
console.log(`  requests ${sent.length}: ${JSON.stringify(byStatus)}`);
console.log(`  answered within ${TIMEOUT_MS} ms: ${result.answeredWithinTimeout}/${sent.length}; 503 with Retry-After: ${result.refused503WithRetryAfter}/${refused.length}; other 5xx: ${result.serverErrorsOtherThan503}`);
console.log(`  latency ms: before p50 ${fmt(result.latencyMs.before.p50, 0)} p99 ${fmt(result.latencyMs.before.p99, 0)}; during the fault p50 ${fmt(result.latencyMs.fault.p50, 0)} max ${fmt(result.latencyMs.fault.max, 0)}; after p50 ${fmt(result.latencyMs.after.p50, 0)} p99 ${fmt(result.latencyMs.after.p99, 0)}`);
console.log(`  200s stored exactly once: ${storedOnce}/${ok.length}; conversations half-written: ${halfWritten}/${conversations.size}`);
if (missingOrDouble.length) console.log(`  not stored exactly once: ${missingOrDouble.slice(0, 10).join('; ')}`);

const root = fileURLToPath(new URL('../..', import.meta.url));
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results', 'faults.json'), JSON.stringify(result, null, 2));
ddb.destroy();
await rt.stop();
