import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../local/dynamodb-local.ts';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { fmt, percentile } from './perf/util.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// `npm run bench:faults`: the service under faults, on this machine, traffic to 127.0.0.1 only.
// 1. DynamoDB Local stopped (SIGSTOP) for 5 s during steady chat traffic from several tenants: every
//    request answered within the function timeout, refusals are 503 with Retry-After (never 500),
//    nothing half-written, and every message that got a 200 stored exactly once (the clients send
//    an Idempotency-Key and retry refusals after Retry-After with the same key, as the widget does).
// 2. A webhook receiver down for 10 minutes of the retry schedule, compressed (DELIVERY_TIME_SCALE):
//    deliveries resume, none lost, duplicates counted, order per endpoint measured.
// 3. `npm start -- --persist` killed with kill -9 under load (runtime and DynamoDB Local, the whole
//    process group) and started again: every acknowledged write and every queued delivery is there.
// 4. A Lambda timeout in the middle of send-message's transaction, three ways (the request never
//    leaves; half of it leaves and the connection dies; it commits and the function is killed
//    before answering): nothing partial, and the client's retry with the same key stores it once.
// 5. Sustained chat load (FAULTS_LOAD_MESSAGES, 3,000 by default) with a CPU hog beside it (a process
//    spinning on one core): every message's event is dispatched (its webhook arrives), and the stream
//    reader sends nothing to the on-failure destination.
// Each part runs in a process of its own. Writes bench-results/faults.json; exits 1 if a property fails.
// Options (env): FAULTS_PARTS (default "1,2,3,4,5"), FAULTS_LOAD_MESSAGES (3000), FAULTS_LOAD_SENDERS (8), FAULTS_TENANTS (4), FAULTS_CONVERSATIONS (6 per tenant),
// FAULTS_INTERVAL_MS (5000 between one conversation's messages: 24 conversations make about 290 a minute),
// FAULTS_DRAIN_S (600: how long part 5 waits after sending for the last events).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PARTS = new Set((process.env.FAULTS_PARTS ?? '1,2,3,4,5').split(',').map((s) => s.trim()));
const LOAD_MESSAGES = Number(process.env.FAULTS_LOAD_MESSAGES ?? 3000);
const LOAD_SENDERS = Number(process.env.FAULTS_LOAD_SENDERS ?? 8);
const TENANTS = Number(process.env.FAULTS_TENANTS ?? 4);
const CONVERSATIONS = Number(process.env.FAULTS_CONVERSATIONS ?? 6);
const INTERVAL_MS = Number(process.env.FAULTS_INTERVAL_MS ?? 5000);
/** How long part 5 waits, after the sending, for the last events (a timed-out attempt's retry: 5 h x 0.01 is 180 s). */
const DRAIN_MS = Number(process.env.FAULTS_DRAIN_S ?? 600) * 1000;
/** The functions' configured timeout (infra/function.ts, 10 s): the client waits no longer for an answer. */
const FUNCTION_TIMEOUT_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

process.env.LOG_LEVEL = 'ERROR';

const results: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };
const verdicts: Array<{ part: string; property: string; pass: boolean; detail: string }> = [];
function verdict(part: string, property: string, pass: boolean, detail: string) {
  verdicts.push({ part, property, pass, detail });
  console.log(`  [${pass ? 'PASS' : 'FAIL'}] ${property}: ${detail}`);
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
  ms: number;
  timedOut: boolean;
  error?: string;
}

async function request(
  base: string,
  method: string,
  path: string,
  o: { widgetKey?: string; token?: string; key?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (o.widgetKey) headers['x-widget-key'] = o.widgetKey;
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.key) headers['idempotency-key'] = o.key;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const t0 = performance.now();
  try {
    const res = await fetch(base + path, {
      method,
      headers,
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      signal: AbortSignal.timeout(FUNCTION_TIMEOUT_MS + 2000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* kept as text */
    }
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body,
      ms: performance.now() - t0,
      timedOut: false,
    };
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    return {
      status: 0,
      retryAfter: null,
      body: undefined,
      ms: performance.now() - t0,
      timedOut,
      error: (e as Error).message,
    };
  }
}

async function onboard(base: string, token: string, name: string) {
  const r = await request(base, 'POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: name } });
  if (r.status !== 201) throw new Error(`onboard ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return { tenantId: r.body.tenant.id as string, widgetKey: r.body.widgetKey as string, token };
}

/**
 * One widget conversation: a message every `interval` ms until `until`, each with its own
 * Idempotency-Key, retried with that key after a refusal (503/429: Retry-After; 409 in progress,
 * or no answer: 1 s) until it gets a 200 or `giveUpAt`. The third message is followed by an escalation.
 */
interface Sent {
  text: string;
  key: string;
  acked: boolean;
}
interface Conversation {
  tenant: { tenantId: string; widgetKey: string };
  id: string | null;
  sent: Sent[];
  ticketAcked: boolean;
  ticketId: string | null;
}
async function widget(
  base: string,
  c: Conversation,
  label: string,
  interval: number,
  until: () => boolean,
  giveUpAt: () => number,
  answers: Answer[],
  log: (a: Answer, at: number) => void,
) {
  let n = 0;
  const send = async (path: string, key: string, body: () => unknown) => {
    for (;;) {
      const a = await request(base, 'POST', path, { widgetKey: c.tenant.widgetKey, key, body: body() });
      answers.push(a);
      log(a, Date.now());
      if (a.status === 200) return a;
      // 409 CONFLICT for a key whose request was carried out but whose answer was lost is final.
      const inProgress = a.status === 409 && a.body?.code === 'IDEMPOTENCY_IN_PROGRESS';
      if (a.status !== 503 && a.status !== 429 && !inProgress && a.status !== 0) return a;
      if (Date.now() > giveUpAt()) return a;
      const wait = a.retryAfter ? Number(a.retryAfter) * 1000 : 1000;
      await sleep(Math.min(wait, 5000));
    }
  };
  await sleep(Math.random() * interval);
  while (until()) {
    const started = Date.now();
    const text = `fk ${label} ${n} ${randomUUID().slice(0, 8)}`;
    const key = `${label}-m${n}`;
    const sent: Sent = { text, key, acked: false };
    c.sent.push(sent);
    const a = await send('/api/v1/chat/message', key, () => ({
      message: text,
      ...(c.id ? { conversationId: c.id } : {}),
    }));
    if (a.status === 200) {
      sent.acked = true;
      c.id ??= a.body.conversationId as string;
    }
    if (n === 2 && c.id) {
      const e = await send('/api/v1/chat/escalate', `${label}-esc`, () => ({
        conversationId: c.id,
        reason: 'fault bench',
      }));
      if (e.status === 200) {
        c.ticketAcked = true;
        c.ticketId = e.body.ticketId as string;
      }
    }
    n++;
    await sleep(Math.max(0, interval - (Date.now() - started)));
  }
}

/** The table's own view of one conversation: counters against the items, ticket refs against tickets. */
async function inspect(ddb: DynamoDBDocumentClient, table: string, tenantId: string, conversationId: string) {
  const pk = `TENANT#${tenantId}#CONV#${conversationId}`;
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  const conv = items.find((i) => i.sk === 'CONV');
  const msgs = items.filter((i) => String(i.sk).startsWith('MSG#'));
  const refs = items.filter((i) => String(i.sk).startsWith('TICKET#'));
  const problems: string[] = [];
  if (!conv) problems.push('no conversation item');
  if (conv && conv.messageCount !== msgs.length)
    problems.push(`messageCount ${conv.messageCount} but ${msgs.length} messages`);
  const users = msgs.filter((m) => m.role === 'user').length;
  if (conv && conv.userMessageCount !== undefined && conv.userMessageCount !== users)
    problems.push(`userMessageCount ${conv.userMessageCount} but ${users}`);
  for (const ref of refs) {
    const ticketId = String(ref.sk).slice('TICKET#'.length);
    const t = (
      await ddb.send(
        new GetCommand({ TableName: table, Key: { pk: `TENANT#${tenantId}#TICKET#${ticketId}`, sk: 'TICKET' } }),
      )
    ).Item;
    if (!t) {
      problems.push(`ticket ${ticketId} referenced but missing`);
      continue;
    }
    if (t.conversationId !== conversationId) problems.push(`ticket ${ticketId} names another conversation`);
    if (typeof t.number === 'number') {
      const num = (
        await ddb.send(
          new GetCommand({ TableName: table, Key: { pk: `TENANT#${tenantId}`, sk: `TICKETNUMBER#${t.number}` } }),
        )
      ).Item;
      if (!num) problems.push(`ticket ${ticketId}'s number ${t.number} has no number item`);
    }
  }
  if (conv?.latestTicketId && !refs.some((r) => String(r.sk) === `TICKET#${conv.latestTicketId}`))
    problems.push('latestTicketId without its reference');
  return { problems, texts: msgs.filter((m) => m.role === 'user').map((m) => String(m.content ?? m.text ?? '')), conv };
}

const docClient = (endpoint: string, table: string) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDatabaseCredentials(table),
    }),
  );

/** Checks stored-exactly-once for every conversation, through the API and with a Query per conversation. */
async function checkStored(base: string, ddb: DynamoDBDocumentClient, table: string, convs: Conversation[]) {
  let acked = 0;
  let ackedStoredOnce = 0;
  let duplicates = 0;
  let lostAcked = 0;
  let halfWritten = 0;
  let apiMismatch = 0;
  let unackedStored = 0;
  const problems: string[] = [];
  for (const c of convs) {
    if (!c.id) {
      acked += c.sent.filter((s) => s.acked).length;
      lostAcked += c.sent.filter((s) => s.acked).length;
      continue;
    }
    const t = await inspect(ddb, table, c.tenant.tenantId, c.id);
    if (t.problems.length) {
      halfWritten++;
      problems.push(`${c.id}: ${t.problems.join('; ')}`);
    }
    const api = await request(base, 'GET', `/api/v1/chat/conversations/${c.id}`, { widgetKey: c.tenant.widgetKey });
    const apiCount = api.status === 200 ? (api.body.messages as unknown[]).length : -1;
    const stored = (t.conv?.messageCount as number | undefined) ?? -2;
    if (apiCount !== stored) apiMismatch++;
    if (c.ticketAcked && !api.body?.ticket) problems.push(`${c.id}: escalated with a 200 but the API shows no ticket`);
    for (const s of c.sent) {
      const copies = t.texts.filter((x) => x.includes(s.text)).length;
      if (s.acked) {
        acked++;
        if (copies === 1) ackedStoredOnce++;
        else if (copies === 0) lostAcked++;
      } else if (copies > 0) unackedStored++;
      if (copies > 1) duplicates += copies - 1;
    }
  }
  return {
    acked,
    ackedStoredOnce,
    lostAcked,
    duplicates,
    unackedStored,
    halfWritten,
    apiMismatch,
    problems: problems.slice(0, 5),
  };
}

// ---- 1. DynamoDB stopped for 5 s --------------------------------------------------------------

async function dynamoOutage() {
  console.log('\n1. DynamoDB Local stopped (SIGSTOP) for 5 s during steady chat traffic');
  const table = 'faults-outage';
  const rt = await startLocalRuntime({ tableName: table });
  const ddb = docClient(rt.dynamodbEndpoint, table);
  try {
    const tenants = [];
    for (let i = 0; i < TENANTS; i++)
      tenants.push(await onboard(rt.url, await rt.idp.token({ sub: `faults-${i}-${randomUUID()}` }), `Faults ${i}`));
    const convs: Conversation[] = tenants.flatMap((tenant) =>
      Array.from({ length: CONVERSATIONS }, () => ({ tenant, id: null, sent: [], ticketAcked: false, ticketId: null })),
    );
    const answers: Answer[] = [];
    const timeline: Array<{ at: number; status: number; retryAfter: string | null; ms: number }> = [];
    let sending = true;
    const stopAt = { outageStart: 0, outageEnd: 0 };
    const giveUp = Date.now() + 120_000;
    const workers = convs.map((c, i) =>
      widget(
        rt.url,
        c,
        `o${i}`,
        INTERVAL_MS,
        () => sending,
        () => giveUp,
        answers,
        (a, at) => timeline.push({ at, status: a.status, retryAfter: a.retryAfter, ms: a.ms }),
      ),
    );
    await sleep(12_000);
    stopAt.outageStart = Date.now();
    rt.dynamo!.process.kill('SIGSTOP');
    await sleep(5000);
    rt.dynamo!.process.kill('SIGCONT');
    stopAt.outageEnd = Date.now();
    await sleep(15_000);
    sending = false;
    await Promise.all(workers);
    await sleep(1500); // Requests DynamoDB had queued while stopped are applied when it resumes.
    const steadyMs = stopAt.outageStart - Date.parse(results.startedAt as string);
    const during = timeline.filter((t) => t.at >= stopAt.outageStart && t.at - t.ms <= stopAt.outageEnd + 2000);
    const byStatus: Record<string, number> = {};
    for (const a of answers) {
      const k = a.status === 0 ? 'no answer' : a.status === 409 ? `409 ${a.body?.code}` : String(a.status);
      byStatus[k] = (byStatus[k] ?? 0) + 1;
    }
    const refused = answers.filter((a) => a.status === 503);
    const refusedWithRetryAfter = refused.filter((a) => Number(a.retryAfter) > 0).length;
    const five = answers.filter((a) => a.status >= 500 && a.status !== 503).length;
    const unanswered = answers.filter((a) => a.status === 0).length;
    const maxMs = Math.max(...answers.map((a) => a.ms));
    const stored = await checkStored(rt.url, ddb, table, convs);
    const elapsedMin = (timeline.at(-1)!.at - timeline[0]!.at) / 60_000;
    const messages = convs.reduce((n, c) => n + c.sent.length, 0);
    const json = {
      tenants: TENANTS,
      conversations: convs.length,
      messages,
      messagesPerMinute: messages / elapsedMin,
      requests: answers.length,
      byStatus,
      duringOutage: during.length,
      refused503: refused.length,
      refusedWithRetryAfter,
      other5xx: five,
      unanswered,
      latencyMs: {
        p50: percentile(
          answers.map((a) => a.ms),
          50,
        ),
        p99: percentile(
          answers.map((a) => a.ms),
          99,
        ),
        max: maxMs,
      },
      ticketsAcked: convs.filter((c) => c.ticketAcked).length,
      ...stored,
      steadyMsBeforeOutage: steadyMs,
    };
    results.dynamoOutage = json;
    console.log(
      `  ${TENANTS} tenants, ${convs.length} conversations, ${messages} messages (${fmt(json.messagesPerMinute, 0)}/min), ${answers.length} requests; answers ${JSON.stringify(byStatus)}`,
    );
    console.log(
      `  latency p50 ${fmt(json.latencyMs.p50, 0)} ms, p99 ${fmt(json.latencyMs.p99, 0)} ms, max ${fmt(maxMs, 0)} ms; ${during.length} requests met the outage`,
    );
    verdict(
      '1',
      'every request answered within the function timeout',
      unanswered === 0 && maxMs < FUNCTION_TIMEOUT_MS,
      `${unanswered} unanswered, slowest ${fmt(maxMs, 0)} ms (timeout ${FUNCTION_TIMEOUT_MS} ms)`,
    );
    verdict(
      '1',
      'refusals are 503 with Retry-After, never 500',
      five === 0 && refused.length === refusedWithRetryAfter,
      `${refused.length} x 503 (${refusedWithRetryAfter} with Retry-After), ${five} other 5xx${refused.length ? '' : " (none refused: the SDK's retries outlasted the stall)"}`,
    );
    verdict(
      '1',
      'no conversation or ticket half-written',
      stored.halfWritten === 0 && stored.apiMismatch === 0,
      `${stored.halfWritten} conversations inconsistent in the table, ${stored.apiMismatch} where the API disagrees${stored.problems.length ? ` (${stored.problems.join(' | ')})` : ''}`,
    );
    verdict(
      '1',
      'every message that got a 200 stored exactly once',
      stored.lostAcked === 0 && stored.duplicates === 0 && stored.acked === stored.ackedStoredOnce,
      `${stored.acked} acknowledged, ${stored.ackedStoredOnce} stored once, ${stored.lostAcked} lost, ${stored.duplicates} duplicates; ${stored.unackedStored} never-acknowledged stored`,
    );
  } finally {
    if (rt.dynamo?.process.exitCode === null) rt.dynamo.process.kill('SIGCONT');
    ddb.destroy();
    await rt.stop();
  }
}

// ---- webhook receivers -------------------------------------------------------------------------

interface Arrival {
  id: string;
  body: string;
  at: number;
}
/** A loopback receiver that can go down (its port refuses connections) and come back on the same port. */
async function receiver(port?: number) {
  const arrivals: Arrival[] = [];
  let server: Server | null = null;
  const p = port ?? (await freePort());
  const up = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          arrivals.push({
            id: String(req.headers['webhook-id']),
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          });
          res.writeHead(204).end();
        });
      });
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = null;
      if (!s) return resolve();
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return { port: p, url: `http://127.0.0.1:${p}/hook`, arrivals, up, down };
}

/** Out-of-order pairs among first arrivals, by event id (a ULID: the order the events were made). */
function inversions(arrivals: Arrival[]) {
  const seen = new Set<string>();
  const firsts: string[] = [];
  for (const a of arrivals)
    if (!seen.has(a.id)) {
      seen.add(a.id);
      firsts.push(a.id);
    }
  let inv = 0;
  let maxSoFar = '';
  for (const id of firsts) {
    if (id < maxSoFar) inv++;
    else maxSoFar = id;
  }
  return { distinct: firsts.length, late: inv };
}

async function integrationDeliveries(base: string, token: string, integrationId: string) {
  const items: Array<{ id: string; eventId: string; status: string; attempts: number; lastError: string | null }> = [];
  let cursor: string | undefined;
  do {
    const r = await request(
      base,
      'GET',
      `/api/v1/admin/integrations/${integrationId}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    if (r.status !== 200) throw new Error(`deliveries: ${r.status} ${JSON.stringify(r.body)}`);
    items.push(...r.body.items);
    cursor = r.body.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

// ---- 2. A webhook receiver down for 10 minutes -------------------------------------------------

async function receiverDown() {
  const scale = 0.01;
  console.log(
    `\n2. A webhook receiver down for 10 minutes of its retry schedule (compressed x${scale}: 10 min = ${600 * scale} s)`,
  );
  const down = await receiver();
  const steady = await receiver();
  await down.up();
  await steady.up();
  const rt = await startLocalRuntime({
    tableName: 'faults-webhooks',
    allowLoopbackWebhooks: true,
    deliveryTimeScale: scale,
  });
  try {
    const a = await onboard(rt.url, await rt.idp.token({ sub: `hook-a-${randomUUID()}` }), 'Hooks A');
    const b = await onboard(rt.url, await rt.idp.token({ sub: `hook-b-${randomUUID()}` }), 'Hooks B');
    const ia = await request(rt.url, 'POST', '/api/v1/admin/integrations', {
      token: a.token,
      body: { type: 'webhook', name: 'Down', config: { url: down.url, events: ['message.created'] } },
    });
    const ib = await request(rt.url, 'POST', '/api/v1/admin/integrations', {
      token: b.token,
      body: { type: 'webhook', name: 'Up', config: { url: steady.url, events: ['message.created'] } },
    });
    if (ia.status !== 201 || ib.status !== 201) throw new Error(`integrations: ${ia.status} ${ib.status}`);
    const convs: Conversation[] = [a, b].flatMap((tenant) =>
      Array.from({ length: 3 }, () => ({ tenant, id: null, sent: [], ticketAcked: false, ticketId: null })),
    );
    const answers: Answer[] = [];
    let sending = true;
    const workers = convs.map((c, i) =>
      widget(
        rt.url,
        c,
        `w${i}`,
        2500,
        () => sending,
        () => Date.now() + 30_000,
        answers,
        () => undefined,
      ),
    );
    // The outage starts once deliveries flow (the stream and the dispatcher warmed up).
    for (let i = 0; i < 100 && down.arrivals.length === 0; i++) await sleep(200);
    await down.down();
    const downAt = Date.now();
    await sleep(600 * scale * 1000);
    await down.up();
    const upAt = Date.now();
    await sleep(2000);
    sending = false;
    await Promise.all(workers);
    // The stream and the last retries (the slowest: 35 min of the schedule, 21 s here) drain.
    await sleep(1000);
    const deadline = Date.now() + 60_000;
    let pending = 0;
    for (;;) {
      const ds = await integrationDeliveries(rt.url, a.token, ia.body.id as string);
      pending = ds.filter((d) => d.status === 'pending').length;
      if ((pending === 0 && rt.queue.size() === 0) || Date.now() > deadline) break;
      await sleep(500);
    }
    const resumedAt = down.arrivals.find((x) => x.at >= upAt)?.at ?? NaN;
    const summary = (r: Awaited<ReturnType<typeof receiver>>, tenant: typeof a, integrationId: string) => async () => {
      const ds = await integrationDeliveries(rt.url, tenant.token, integrationId);
      const ackedTexts = convs
        .filter((c) => c.tenant === tenant)
        .flatMap((c) => c.sent.filter((s) => s.acked).map((s) => s.text));
      const delivered = new Set(r.arrivals.map((x) => x.id));
      const missingAcked = ackedTexts.filter((t) => !r.arrivals.some((x) => x.body.includes(t))).length;
      const order = inversions(r.arrivals);
      return {
        acked: ackedTexts.length,
        deliveries: ds.length,
        succeeded: ds.filter((d) => d.status === 'succeeded').length,
        failed: ds.filter((d) => d.status === 'failed').length,
        pending: ds.filter((d) => d.status === 'pending').length,
        lost: ds.filter((d) => !delivered.has(d.eventId)).length,
        missingAcked,
        arrivals: r.arrivals.length,
        distinct: order.distinct,
        duplicates: r.arrivals.length - order.distinct,
        outOfOrder: order.late,
        maxAttempts: Math.max(...ds.map((d) => d.attempts)),
        failedAttempts: ds.reduce((n, d) => n + d.attempts, 0) - ds.filter((d) => d.status === 'succeeded').length,
      };
    };
    const sa = await summary(down, a, ia.body.id as string)();
    const sb = await summary(steady, b, ib.body.id as string)();
    results.receiverDown = {
      scale,
      downForMs: upAt - downAt,
      resumedAfterMs: resumedAt - upAt,
      down: sa,
      steady: sb,
      deadLetters: rt.queue.deadLetters.length,
    };
    console.log(
      `  receiver down ${upAt - downAt} ms (10 min x${scale}); first delivery ${fmt(resumedAt - upAt, 0)} ms after it came back`,
    );
    console.log(`  the endpoint that was down: ${JSON.stringify(sa)}`);
    console.log(`  another tenant's endpoint, up throughout: ${JSON.stringify(sb)}`);
    verdict(
      '2',
      'deliveries resume after the outage',
      Number.isFinite(resumedAt) && sa.pending === 0 && sa.succeeded === sa.deliveries && sa.failedAttempts > 0,
      `${sa.succeeded}/${sa.deliveries} succeeded after ${sa.failedAttempts} failed attempts during the outage, ${sa.pending} pending, ${sa.failed} failed`,
    );
    verdict(
      '2',
      'nothing lost',
      sa.lost === 0 &&
        sa.missingAcked === 0 &&
        sb.lost === 0 &&
        sb.missingAcked === 0 &&
        rt.queue.deadLetters.length === 0,
      `${sa.lost + sb.lost} deliveries never arrived, ${sa.missingAcked + sb.missingAcked} acknowledged messages without their event, ${rt.queue.deadLetters.length} dead letters`,
    );
    verdict(
      '2',
      'duplicates only as at-least-once allows (counted)',
      true,
      `${sa.duplicates} duplicate arrivals at the endpoint that was down, ${sb.duplicates} at the other`,
    );
    verdict(
      '2',
      'in order per endpoint (first arrivals by event id)',
      sa.outOfOrder === 0 && sb.outOfOrder === 0,
      `${sa.outOfOrder} of ${sa.distinct} events arrived after a later one at the endpoint that was down; ${sb.outOfOrder} of ${sb.distinct} at the other`,
    );
  } finally {
    await rt.stop();
    await down.down();
    await steady.down();
  }
}

// ---- 3. kill -9 with --persist -----------------------------------------------------------------

async function startChild(dir: string, port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    [join(ROOT, 'bin', 'dev.ts'), '--persist', '--no-dashboard', '--allow-loopback-webhooks', '--port', String(port)],
    {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DELIVERY_TIME_SCALE: '0.01',
        LOG_LEVEL: 'ERROR',
        CURSOR_SECRET: 'faults-bench-cursor-secret-0123456789abcdef',
        LOCAL_DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
      },
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const t0 = Date.now();
  while (!out.includes('Support assistant running at')) {
    if (child.exitCode !== null) throw new Error(`the runtime exited: ${out}`);
    if (Date.now() - t0 > 90_000) throw new Error(`the runtime did not start: ${out}`);
    await sleep(100);
  }
  return { child, url: `http://127.0.0.1:${port}` };
}
/** kill -9 of the whole process group: the runtime and its DynamoDB Local, as a crash of the machine would. */
async function kill9(child: ChildProcess) {
  const gone = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGKILL');
  await gone;
  await sleep(500);
}

async function persistKill() {
  console.log('\n3. `npm start -- --persist` killed with kill -9 under load, then started again');
  const dir = mkdtempSync(join(tmpdir(), 'faults-persist-'));
  const port = await freePort();
  const hook = await receiver();
  let run = await startChild(dir, port);
  try {
    const token = async (sub: string) =>
      (await request(run.url, 'POST', '/local-idp/token', { body: { sub } })).body.accessToken as string;
    const tenants = [
      await onboard(run.url, await token('persist-a'), 'Persist A'),
      await onboard(run.url, await token('persist-b'), 'Persist B'),
    ];
    const integrations: string[] = [];
    for (const t of tenants) {
      const r = await request(run.url, 'POST', '/api/v1/admin/integrations', {
        token: t.token,
        body: { type: 'webhook', name: 'Later', config: { url: hook.url, events: ['message.created'] } },
      });
      if (r.status !== 201) throw new Error(`integration: ${r.status} ${JSON.stringify(r.body)}`);
      integrations.push(r.body.id as string);
    }
    // The receiver is down: deliveries wait in the queue for their retries when the runtime dies.
    const convs: Conversation[] = tenants.flatMap((tenant) =>
      Array.from({ length: 5 }, () => ({ tenant, id: null, sent: [], ticketAcked: false, ticketId: null })),
    );
    const answers: Answer[] = [];
    let alive = true;
    const workers = convs.map((c, i) =>
      widget(
        run.url,
        c,
        `p${i}`,
        2500,
        () => alive,
        () => 0,
        answers,
        () => undefined,
      ),
    );
    await sleep(8000);
    const ackedBefore = convs.reduce((n, c) => n + c.sent.filter((s) => s.acked).length, 0);
    await kill9(run.child);
    alive = false;
    await Promise.all(workers);
    const acked = convs.flatMap((c) => c.sent.filter((s) => s.acked).map((s) => ({ c, s })));
    const cut = answers.filter((a) => a.status === 0).length;
    const t0 = Date.now();
    run = await startChild(dir, port);
    const restartMs = Date.now() - t0;
    for (const t of tenants) t.token = await token(t.tenantId === tenants[0]!.tenantId ? 'persist-a' : 'persist-b');
    // Every acknowledged write, through the API.
    let present = 0;
    let dup = 0;
    for (const { c, s } of acked) {
      const r = await request(run.url, 'GET', `/api/v1/chat/conversations/${c.id}`, { widgetKey: c.tenant.widgetKey });
      const n =
        r.status === 200
          ? (r.body.messages as Array<{ content?: string; text?: string }>).filter((m) =>
              String(m.content ?? m.text ?? '').includes(s.text),
            ).length
          : 0;
      if (n >= 1) present++;
      if (n > 1) dup++;
    }
    const queuedBefore = [] as number[];
    for (const [i, t] of tenants.entries())
      queuedBefore.push((await integrationDeliveries(run.url, t.token, integrations[i]!)).length);
    // Every queued delivery: the receiver comes back and each delivery of an acknowledged message arrives.
    await hook.up();
    const deadline = Date.now() + 60_000;
    let pending = 0;
    let all: Array<{ eventId: string; status: string }> = [];
    for (;;) {
      all = [];
      for (const [i, t] of tenants.entries())
        all.push(...(await integrationDeliveries(run.url, t.token, integrations[i]!)));
      pending = all.filter((d) => d.status === 'pending').length;
      if (pending === 0 || Date.now() > deadline) break;
      await sleep(500);
    }
    const arrived = new Set(hook.arrivals.map((x) => x.id));
    const notDelivered = all.filter((d) => !arrived.has(d.eventId)).length;
    const ackedWithoutEvent = acked.filter(({ s }) => !hook.arrivals.some((x) => x.body.includes(s.text))).length;
    const json = {
      acked: acked.length,
      ackedBeforeKillCheck: ackedBefore,
      cutByKill: cut,
      present,
      duplicatesOfAcked: dup,
      restartMs,
      deliveries: all.length,
      queuedAfterRestart: queuedBefore,
      pending,
      notDelivered,
      ackedWithoutDelivery: ackedWithoutEvent,
      arrivals: hook.arrivals.length,
      duplicateArrivals: hook.arrivals.length - arrived.size,
    };
    results.persistKill = json;
    console.log(
      `  ${acked.length} messages acknowledged before the kill (${cut} requests cut by it); restart took ${restartMs} ms`,
    );
    console.log(`  ${JSON.stringify(json)}`);
    verdict(
      '3',
      'every acknowledged write is there after the restart',
      present === acked.length && dup === 0,
      `${present}/${acked.length} present, ${dup} duplicated`,
    );
    verdict(
      '3',
      'every queued delivery is there and is delivered',
      pending === 0 && notDelivered === 0 && all.length > 0,
      `${all.length} deliveries, ${pending} still pending, ${notDelivered} never arrived`,
    );
    verdict(
      '3',
      'every acknowledged message has its delivery',
      ackedWithoutEvent === 0,
      `${ackedWithoutEvent} of ${acked.length} acknowledged messages never reached the receiver (event not fanned out before the kill)`,
    );
  } finally {
    if (run.child.exitCode === null) await kill9(run.child);
    await hook.down();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- 4. A Lambda timeout in the middle of the transaction -------------------------------------

async function timeoutMidTransaction() {
  console.log("\n4. A Lambda timeout in the middle of send-message's TransactWriteItems");
  const table = 'faults-timeout';
  const rt: LocalRuntime = await startLocalRuntime({ tableName: table, stream: false });
  const ddb = docClient(rt.dynamodbEndpoint, table);
  const { db } = await import('#shared/data/client.ts');
  const { v2Event, lambdaContext } = await import('../../local/events.ts');
  const { sendMessage } = await import('#shared/edge/routes/chat.ts');
  const { handler } = (await import('#functions/chat/send-message.ts')) as {
    handler: (
      e: unknown,
      c: unknown,
    ) => Promise<{ statusCode: number; body?: string; headers?: Record<string, string> }>;
  };
  type Mode = 'never-sent' | 'half-sent' | 'committed-then-killed' | null;
  let mode: Mode = null;
  const never = new Promise<never>(() => undefined);
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (mode === null || context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const m = mode;
      if (m === 'never-sent') return never; // Frozen before the request left: the function is killed at its timeout.
      if (m === 'half-sent') {
        // Half the body leaves, then the function dies: the connection breaks mid-request.
        const req = args.request as { body?: string | Uint8Array };
        const b = req.body;
        const bytes =
          typeof b === 'string'
            ? Buffer.from(b)
            : b
              ? Buffer.from(b.buffer, b.byteOffset, b.byteLength)
              : Buffer.alloc(0);
        req.body = bytes.subarray(0, Math.floor(bytes.length / 2)); // Content-Length still names the whole body.
        return next(args);
      }
      const out = await next(args); // committed
      void out;
      return never; // killed before it could answer
    },
    { step: 'finalizeRequest', name: 'faultInjection', priority: 'low' },
  );

  try {
    const t = await onboard(rt.url, await rt.idp.token({ sub: `timeout-${randomUUID()}` }), 'Timeouts');
    const first = await request(rt.url, 'POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'hello' },
    });
    const conversationId = first.body.conversationId as string;
    const rows: Record<string, unknown>[] = [];
    for (const m of (process.env.FAULTS_MODES?.split(',') ?? [
      'never-sent',
      'half-sent',
      'committed-then-killed',
    ]) as Array<'never-sent' | 'half-sent' | 'committed-then-killed'>) {
      const text = `fk timeout ${m} ${randomUUID().slice(0, 8)}`;
      const key = `timeout-${m}`;
      const body = { message: text, conversationId };
      const event = v2Event({
        route: sendMessage,
        headers: { 'x-widget-key': t.widgetKey, 'idempotency-key': key },
        body,
      });
      mode = m;
      const t0 = performance.now();
      // The invocation is abandoned at the function timeout, as Lambda ends it (its promise may never settle).
      const outcome = await Promise.race([
        handler(event, lambdaContext(sendMessage)).then(
          (r) => `answered ${r.statusCode}`,
          (e: Error) => `threw ${e.name}`,
        ),
        sleep(FUNCTION_TIMEOUT_MS).then(() => 'timed out'),
      ]);
      const ms = performance.now() - t0;
      mode = null;
      await sleep(300);
      const after = await inspect(ddb, table, t.tenantId, conversationId);
      const copiesAfterFault = after.texts.filter((x) => x.includes(text)).length;
      // The widget retries with the same key until it gets a 200 (the key of a killed attempt is locked for 30 s).
      let retry: Answer;
      let tries = 0;
      const retryStart = Date.now();
      do {
        retry = await request(rt.url, 'POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, key, body });
        tries++;
        if (retry.status !== 200) await sleep(retry.retryAfter ? Number(retry.retryAfter) * 1000 : 2000);
      } while (retry.status !== 200 && retry.body?.code !== 'CONFLICT' && Date.now() - retryStart < 45_000);
      const final = await inspect(ddb, table, t.tenantId, conversationId);
      const copies = final.texts.filter((x) => x.includes(text)).length;
      const row = {
        mode: m,
        invocation: outcome,
        ms: Math.round(ms),
        consistentAfterFault: after.problems.length === 0,
        problems: after.problems,
        copiesAfterFault,
        retryStatus: retry.status,
        retries: tries,
        retryWaitMs: Date.now() - retryStart,
        copiesAfterRetry: copies,
        consistentAfterRetry: final.problems.length === 0,
      };
      rows.push(row);
      console.log(
        `  ${m}: invocation ${outcome} after ${fmt(ms, 0)} ms; the transaction's items ${copiesAfterFault ? 'all there' : 'none there'}, conversation ${after.problems.length ? `INCONSISTENT (${after.problems.join('; ')})` : 'consistent'}; retry with the same key: ${retry.status} after ${tries} tries, stored ${copies}x`,
      );
      verdict(
        '4',
        `${m}: nothing partial`,
        after.problems.length === 0 && final.problems.length === 0,
        after.problems.join('; ') || 'counters match the items, ticket refs resolve',
      );
      // A 200, or 409 CONFLICT where the first attempt committed and its answer was lost: never a second copy.
      verdict(
        '4',
        `${m}: the retry stores it exactly once`,
        (retry.status === 200 || retry.body?.code === 'CONFLICT') && copies === 1,
        `${retry.status}${retry.body?.code ? ` ${retry.body.code}` : ''}, ${copies} copies`,
      );
    }
    results.timeoutMidTransaction = rows;
  } finally {
    mode = null;
    ddb.destroy();
    await rt.stop();
  }
}

// ---- 5. Sustained load with a CPU hog ----------------------------------------------------------

async function sustainedLoad() {
  console.log(`\n5. ${LOAD_MESSAGES} chat messages from ${LOAD_SENDERS} senders with a CPU hog beside the service`);
  const hooks = await receiver();
  await hooks.up();
  const rt = await startLocalRuntime({
    tableName: 'faults-load',
    allowLoopbackWebhooks: true,
    deliveryTimeScale: 0.01,
  });
  let hog: ChildProcess | null = null;
  try {
    const tenants: Array<Awaited<ReturnType<typeof onboard>> & { integrationId: string }> = [];
    for (let i = 0; i < TENANTS; i++) {
      const t = await onboard(rt.url, await rt.idp.token({ sub: `load-${i}-${randomUUID()}` }), `Load ${i}`);
      const r = await request(rt.url, 'POST', '/api/v1/admin/integrations', {
        token: t.token,
        body: { type: 'webhook', name: 'Counter', config: { url: hooks.url, events: ['message.created'] } },
      });
      if (r.status !== 201) throw new Error(`integration: ${r.status}`);
      tenants.push({ ...t, integrationId: r.body.id as string });
    }
    // The hog starts with the load: it spins on one core for as long as the part runs.
    hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const acked: string[] = [];
    let refused = 0;
    const byStatus: Record<string, number> = {};
    let next = 0;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: LOAD_SENDERS }, async (_, w) => {
        let conversationId: string | undefined;
        for (let n = next++; n < LOAD_MESSAGES; n = next++) {
          const text = `load ${w} ${n} ${randomUUID().slice(0, 8)}`;
          if (n % 10 === 0) conversationId = undefined;
          const r = await request(rt.url, 'POST', '/api/v1/chat/message', {
            // One tenant per sender: a conversation id is only its own tenant's (another's answers 404).
            widgetKey: tenants[w % tenants.length]!.widgetKey,
            key: randomUUID(),
            body: { message: text, ...(conversationId ? { conversationId } : {}) },
          });
          byStatus[r.timedOut ? 'no answer' : r.status] = (byStatus[r.timedOut ? 'no answer' : r.status] ?? 0) + 1;
          if (r.status === 200) {
            acked.push(text);
            conversationId = r.body.conversationId as string;
          } else refused++;
        }
      }),
    );
    const sentMs = Date.now() - t0;
    // The hog keeps running through the drain: a delivery whose attempt timed out under the load
    // waits out its retry (compressed by deliveryTimeScale).
    const deadline = Date.now() + DRAIN_MS;
    const arrived = () => {
      const all = hooks.arrivals.map((a) => a.body).join('\n');
      return acked.filter((t) => all.includes(t)).length;
    };
    const allDeliveries = async () =>
      (await Promise.all(tenants.map((t) => integrationDeliveries(rt.url, t.token, t.integrationId)))).flat();
    let seen = arrived();
    // Until every acknowledged message arrived and no delivery (the answers' events too) is pending.
    while (Date.now() < deadline && rt.streamFailures().length === 0) {
      seen = arrived();
      if (seen === acked.length && !(await allDeliveries()).some((d) => d.status === 'pending')) break;
      await sleep(5000);
    }
    const failures = rt.streamFailures().length;
    // Each acknowledged message's event made one delivery per tenant's webhook: the dispatcher's part.
    const delivered = new Set(hooks.arrivals.map((a) => a.id));
    const ds = await allDeliveries();
    const notArrived = ds.filter((d) => !delivered.has(d.eventId));
    const deliveries = {
      made: ds.length,
      succeeded: ds.filter((d) => d.status === 'succeeded').length,
      pending: ds.filter((d) => d.status === 'pending').length,
      failed: ds.filter((d) => d.status === 'failed').length,
      retried: ds.filter((d) => d.attempts > 1).length,
      notArrived: notArrived.map((d) => ({ ...d, body: undefined })),
      deadLetters: rt.queue.deadLetters.length,
      stillQueued: rt.queue.size(),
    };
    results.sustainedLoad = {
      messages: LOAD_MESSAGES,
      senders: LOAD_SENDERS,
      acked: acked.length,
      refused,
      byStatus,
      sentMs,
      dispatched: seen,
      deliveries,
      onFailure: failures,
      drainedMs: Date.now() - t0 - sentMs,
    };
    console.log(
      `  ${acked.length} messages acknowledged (${refused} refused: ${JSON.stringify(byStatus)}) in ${fmt(sentMs / 1000, 0)} s; ${seen} of their events arrived after a ${fmt((Date.now() - t0 - sentMs) / 1000, 0)} s drain; ${failures} on-failure records`,
    );
    console.log(
      `  deliveries: ${ds.length} made, ${deliveries.succeeded} succeeded (${deliveries.retried} after a retry), ${deliveries.pending} pending, ${deliveries.failed} failed, ${rt.queue.deadLetters.length} dead letters, ${deliveries.stillQueued} messages still on the delivery queue${notArrived.length ? `; not arrived: ${JSON.stringify(deliveries.notArrived.slice(0, 5))}` : ''}`,
    );
    verdict(
      '5',
      'every event dispatched under load',
      ds.length >= acked.length && seen === acked.length,
      `${ds.length} deliveries made for ${acked.length} acknowledged messages; ${seen}/${acked.length} arrived at the webhook`,
    );
    verdict(
      '5',
      'every delivery of the load done',
      deliveries.pending === 0 && deliveries.failed === 0 && deliveries.deadLetters === 0,
      `${deliveries.pending} pending, ${deliveries.failed} failed, ${deliveries.deadLetters} dead letters of ${ds.length}`,
    );
    verdict('5', 'no batch sent to the on-failure destination', failures === 0, `${failures} on-failure records`);
  } finally {
    hog?.kill('SIGKILL');
    await rt.stop();
    await hooks.down();
  }
}

const t0 = Date.now();
const OUT = join(ROOT, 'bench-results');
mkdirSync(OUT, { recursive: true });
if (PARTS.size > 1) {
  // Each part in a process of its own: the handlers' DynamoDB client is made once per process, for one runtime.
  for (const part of ['1', '2', '3', '4', '5'].filter((p) => PARTS.has(p))) {
    spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [fileURLToPath(import.meta.url)], {
      stdio: 'inherit',
      env: { ...process.env, FAULTS_PARTS: part },
    });
    try {
      const r = JSON.parse(readFileSync(join(OUT, `faults-${part}.json`), 'utf8')) as typeof results & {
        verdicts: typeof verdicts;
      };
      const { verdicts: v, startedAt: _s, node: _n, seconds: _x, ...rest } = r;
      Object.assign(results, rest);
      verdicts.push(...v);
    } catch {
      verdicts.push({ part, property: 'the part ran to its end', pass: false, detail: 'it stopped early (see above)' });
    }
  }
} else {
  try {
    if (PARTS.has('1')) await dynamoOutage();
    if (PARTS.has('2')) await receiverDown();
    if (PARTS.has('3')) await persistKill();
    if (PARTS.has('4')) await timeoutMidTransaction();
    if (PARTS.has('5')) await sustainedLoad();
  } finally {
    results.verdicts = verdicts;
    results.seconds = (Date.now() - t0) / 1000;
    writeFileSync(join(OUT, `faults-${[...PARTS].join('')}.json`), JSON.stringify(results, null, 2));
  }
  process.exit(verdicts.every((v) => v.pass) ? 0 : 1);
}
results.verdicts = verdicts;
results.seconds = (Date.now() - t0) / 1000;
writeFileSync(join(OUT, 'faults.json'), JSON.stringify(results, null, 2));
const failed = verdicts.filter((v) => !v.pass);
console.log(`\nFaults: ${verdicts.length - failed.length}/${verdicts.length} properties pass in ${fmt((Date.now() - t0) / 1000, 0)} s${failed.length ? `; FAIL: ${failed.map((f) => `${f.part} ${f.property}`).join('; ')}` : ''}
wrote bench-results/faults.json`);
process.exit(failed.length ? 1 : 0);
