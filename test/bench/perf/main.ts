import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startLocalRuntime, type LocalRuntime } from '../../../local/runtime.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { lambdaContext, v2Event } from '../../../local/events.ts';
import { fmt, kb, percentile, table, type Row } from './util.ts';

// Order: the runtime and a fixture tenant, then per-route round trips and latency (handlers
// invoked in-process), /stats at two data volumes, POST /chat/message under load over HTTP, and
// last the bundles (fresh processes, with the runtime stopped so that it takes no CPU).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const WARMUP = 20;
const ITERATIONS = 200;
const BUDGET = {
  roundTrips: 3,
  overhead: 0.2,
  chatBundle: 500 * 1024,
  statsRatio: 1.25,
  kbColdMs: 300,
  kbSearchMs: 5,
  importMs: 2000,
};

/** `npm run bench -- --routes <text>` (env BENCH_ROUTES): only the per-route rows whose label has the text, nothing else. */
const ONLY_ROUTES = process.env.BENCH_ROUTES;
/** `npm run bench -- --knowledge` (env BENCH_KNOWLEDGE): only the knowledge base's rows. */
const ONLY_KNOWLEDGE = process.env.BENCH_KNOWLEDGE === '1';

const log = (msg: string) => process.stderr.write(`[bench ${(performance.now() / 1000).toFixed(0)}s] ${msg}\n`);

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
  // The key makes the resend below safe on the routes that take one (onboarding, the import).
  if (method !== 'GET') headers['idempotency-key'] = randomUUID();
  const send = () =>
    fetch(rt.url + path, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  // The fixture's setup sends a 503 (DynamoDB Local slow on a loaded machine) again after its Retry-After, as a client would.
  // A resend may find the first still running (409 IDEMPOTENCY_IN_PROGRESS): it waits and asks again.
  let res = await send();
  let text = await res.text();
  for (let i = 0; i < 10 && (res.status === 503 || text.includes('IDEMPOTENCY_IN_PROGRESS')); i++) {
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    res = await send();
    text = await res.text();
  }
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as any) : undefined;
}

/** The claims as API Gateway passes them to the function (string values), from a local token. */
function gatewayClaims(token: string): Record<string, string> {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  return Object.fromEntries(
    Object.entries(payload).map(([k, v]) => [
      k,
      typeof v === 'string' ? v : Array.isArray(v) ? `[${v.join(' ')}]` : String(v),
    ]),
  );
}

let tenants = 0;
async function newTenant(rt: LocalRuntime, name: string) {
  const sub = `bench-${process.pid}-${tenants++}`;
  const token = await rt.idp.token({ sub, email: `${sub}@example.com` });
  const r = await http(rt, 'POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: name } });
  return { tenantId: r.tenant.id as string, widgetKey: r.widgetKey as string, token, claims: gatewayClaims(token) };
}

/** Runs test/bench/perf/live.ts's measure in a child process against `dynamodbEndpoint`. */
async function liveInChild(dynamodbEndpoint: string): Promise<{ n: number; p50: number; p99: number; max: number }> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/bench/perf/live.ts'), dynamodbEndpoint],
    {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

export async function main() {
  const started = performance.now();
  const rows: Row[] = [];
  const json: Record<string, unknown> = {
    startedAt: new Date().toISOString(),
    node: process.version,
    warmup: WARMUP,
    iterations: ITERATIONS,
  };

  log('starting DynamoDB Local and the local runtime');
  // No stream reader here: the per-route round trips count the handler's calls alone, not the
  // dispatcher's that its writes set off. The live channel is measured on a runtime of its own.
  // No TTL either: its own stream reader ran on this thread every 75 ms, inside the handlers' time.
  const rt = await startLocalRuntime({ tableName: 'bench', stream: false, ttl: false });
  try {
    // Imported only now: the data client reads the endpoint that the runtime has just set.
    const { routeCases, benchRoute } = await import('./routes.ts');
    const { seedConversations } = await import('./stats-scale.ts');
    const { chatLoad } = await import('./load.ts');
    const { roundTrips } = await import('#shared/data/client.ts');

    log('fixture tenant');
    const t = await newTenant(rt, 'Bench Shop');
    const conversations: string[] = [];
    for (let i = 0; i < 20; i++) {
      conversations.push(
        (await http(rt, 'POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hello' } }))
          .conversationId,
      );
    }
    // Ratings need a ticket: every fixture conversation has one (20 escalations, under the 30 a minute).
    const escalated = [];
    for (const conversationId of conversations) {
      escalated.push(
        await http(rt, 'POST', '/api/v1/chat/escalate', {
          widgetKey: t.widgetKey,
          body: { conversationId, reason: 'bench' },
        }),
      );
    }
    const esc = escalated[0];
    // The load below starts a conversation every 20 messages from one address: the tenant raises its per-address figure.
    await http(rt, 'PUT', '/api/v1/admin/settings', {
      token: t.token,
      body: { config: { widget: { newConversationsPerMinute: 10_000 } } },
    });
    let intentId: string | undefined;
    try {
      intentId = (await http(rt, 'GET', '/api/v1/admin/intents', { token: t.token })).items?.[0]?.id;
    } catch {
      /* not there yet */
    }

    // A tenant with 500 articles of about 5,000 characters, imported through the API.
    const { seedKnowledge, benchRetrieval, benchImport } = await import('./knowledge.ts');
    const kbTenant = await newTenant(rt, 'Knowledge 500');
    // Its route row starts a conversation per request (220 in a few seconds, from one address).
    await http(rt, 'PUT', '/api/v1/admin/settings', {
      token: kbTenant.token,
      body: { config: { widget: { newConversationsPerMinute: 10_000 } } },
    });
    log('importing 500 articles of about 5,000 characters');
    const call = (method: string, path: string, opts: { token?: string; body?: unknown }) =>
      http(rt, method, path, opts);
    const seeded = await seedKnowledge(call, kbTenant);
    const kbArticleId = (await http(rt, 'GET', '/api/v1/admin/articles?limit=1', { token: kbTenant.token })).items[0]
      .id as string;
    const kbFixture = {
      widgetKey: kbTenant.widgetKey,
      ownerClaims: kbTenant.claims,
      articleId: kbArticleId,
      message: seeded.message,
    };

    // ---- per route ----------------------------------------------------------------------------
    const fixture = {
      root: ROOT,
      widgetKey: t.widgetKey,
      ownerClaims: t.claims,
      conversations,
      ticketId: esc.ticketId,
      ...(intentId ? { intentId } : {}),
      kb: kbFixture,
    };
    const perRoute = [];
    for (const c of routeCases(fixture).filter((x) =>
      ONLY_ROUTES ? x.label.includes(ONLY_ROUTES) : !ONLY_KNOWLEDGE,
    )) {
      log(`route ${c.label}`);
      const r = await benchRoute(ROOT, c, WARMUP, ITERATIONS);
      perRoute.push(r);
      const isChatMessage = c.route.path === '/api/v1/chat/message';
      // The handoff routes have the same budget as chat messages and admin reads.
      const handoff = [
        'chat/get-widget',
        'chat/rate-conversation',
        'admin/nlu-parse',
        'admin/patch-me',
        'admin/create-live-ticket',
        'admin/post-agent-message',
        'chat/get-article',
      ].includes(c.route.handler);
      const rtBudget = isChatMessage || handoff || (c.route.auth === 'jwt' && c.route.method === 'GET');
      const rtMax = r.roundTrips.max;
      const failed = r.non2xx ? ` (${r.non2xx} non-2xx: ${JSON.stringify(r.statuses)})` : '';
      rows.push({
        section: 'route',
        what: `${c.label}: DynamoDB round trips/request`,
        measured: `${fmt(r.roundTrips.mean, 1)} mean, ${rtMax} max${failed}`,
        budget: rtBudget ? `≤ ${BUDGET.roundTrips}` : '-',
        verdict: rtBudget ? (rtMax <= BUDGET.roundTrips ? 'ok' : 'OVER') : '',
      });
      rows.push({
        section: 'route',
        what: `${c.label}: handler p50/p99 | db p50/p99 (ms)`,
        measured: `${fmt(r.handlerMs.p50)}/${fmt(r.handlerMs.p99)} | ${fmt(r.dbMs.p50)}/${fmt(r.dbMs.p99)}; overhead ${r.overheadP50 === null ? 'n/a (no db)' : `${fmt(r.overheadP50 * 100, 0)} %`}`,
        budget: `overhead ≤ ${BUDGET.overhead * 100} % p50`,
        verdict: r.overheadP50 === null ? 'n/a' : r.overheadP50 <= BUDGET.overhead ? 'ok' : 'OVER',
      });
    }
    json.routes = perRoute;
    if (ONLY_ROUTES && !ONLY_KNOWLEDGE) {
      console.log(table(rows));
      return;
    }

    // ---- the live channel: an agent's message to the customer's socket -------------------------
    // In a process of its own (the handlers read their table from the environment), on the same
    // DynamoDB Local with the stream reader on, before the 100,000 conversations are seeded.
    if (!ONLY_KNOWLEDGE) {
      log('live: agent POST to the frame on a customer socket, 100 messages');
      const live = await liveInChild(rt.dynamodbEndpoint);
      json.live = live;
      rows.push({
        section: 'live',
        what: 'agent POST to the event frame on a customer socket (stream poll included): p50/p99 ms',
        measured: `${fmt(live.p50)}/${fmt(live.p99)} (max ${fmt(live.max)}, n ${live.n})`,
        budget: 'p99 ≤ 2000 ms',
        verdict: live.p99 <= 2000 ? 'ok' : 'OVER',
      });
    }

    // ---- knowledge base -----------------------------------------------------------------------
    log('knowledge base: cold load and build, warm search, import of 100 articles');
    const retrieval = await benchRetrieval(kbTenant.tenantId);
    const imports = await benchImport(call, () => newTenant(rt, 'Import 100'), 5);
    json.knowledge = { seeded, retrieval, imports };
    const c = retrieval.coldLoadAndBuildMs;
    rows.push({
      section: 'knowledge',
      what: `${seeded.articles} articles of ${seeded.avgBodyChars} chars, imported in ${fmt(seeded.seedMs / 1000, 1)} s`,
      measured: seeded.message
        ? 'a StackFAQ rephrasing answered from them (row above)'
        : 'no message answered from them',
      budget: '',
      verdict: '',
    });
    rows.push({
      section: 'knowledge',
      what: 'cold tenant: KB load + index build, ms (first in process | p50 | max of 10), round trips',
      measured: `${fmt(c.first, 0)} | ${fmt(c.p50, 0)} | ${fmt(c.max, 0)}, ${retrieval.coldRoundTrips}`,
      budget: `≤ ${BUDGET.kbColdMs} ms`,
      verdict: c.p50 <= BUDGET.kbColdMs ? 'ok' : 'OVER',
    });
    const cpu = retrieval.coldCpuMs;
    rows.push({
      section: 'knowledge',
      what: 'cold tenant: the same, CPU time of this process, ms (first | p50 | max of 10)',
      measured: `${fmt(cpu.first, 0)} | ${fmt(cpu.p50, 0)} | ${fmt(cpu.max, 0)}`,
      budget: '',
      verdict: '',
    });
    const w = retrieval.warmSearchMs;
    rows.push({
      section: 'knowledge',
      what: `warm retrieval, 500 articles: p50/p99 ms (${retrieval.searches} messages, median of 5 passes)`,
      measured: `${fmt(w.p50, 3)}/${fmt(w.p99, 3)}; best pass p99 ${fmt(w.p99BestPass, 3)}; p99 of each message's fastest ${fmt(w.p99FastestOfFive, 3)}`,
      budget: `≤ ${BUDGET.kbSearchMs} ms p99`,
      verdict: w.p99 <= BUDGET.kbSearchMs ? 'ok' : 'OVER',
    });
    rows.push({
      section: 'knowledge',
      what: `POST /articles/import, 100 articles (${kb(imports.requestBytes)}): new | all replaced, p50/max ms (${imports.runs} each)`,
      measured: `${fmt(imports.createdMs.p50, 0)}/${fmt(imports.createdMs.max, 0)} | ${fmt(imports.replacedMs.p50, 0)}/${fmt(imports.replacedMs.max, 0)}`,
      budget: `≤ ${BUDGET.importMs} ms`,
      verdict: imports.maxMs <= BUDGET.importMs ? 'ok' : 'OVER',
    });
    if (ONLY_KNOWLEDGE) {
      console.log(table(rows));
      return;
    }

    // ---- /stats at 100 and 100,000 conversations ----------------------------------------------
    const statsRoute = routes.find((r) => r.handler === 'admin/get-stats');
    if (statsRoute) {
      const small = await newTenant(rt, 'Stats 100');
      const big = await newTenant(rt, 'Stats 100k');
      log('seeding 100 conversations');
      const seedSmall = await seedConversations(rt.dynamodbEndpoint, 'bench', small.tenantId, 100);
      log('seeding 100,000 conversations');
      const seedBig = await seedConversations(rt.dynamodbEndpoint, 'bench', big.tenantId, 100_000);
      log(`seeded in ${fmt(seedBig / 1000, 1)} s; timing /stats`);
      const { handler } = (await import(pathToFileURL(join(ROOT, 'functions', 'admin', 'get-stats.ts')).href)) as {
        handler: (e: unknown, c: unknown) => Promise<{ statusCode?: number; body?: string }>;
      };
      const times = { small: [] as number[], big: [] as number[] };
      const rts = { small: [] as number[], big: [] as number[] };
      const counts = { small: 0, big: 0 };
      for (let i = 0; i < WARMUP + ITERATIONS; i++) {
        for (const [which, who] of [
          ['small', small],
          ['big', big],
        ] as const) {
          const rt0 = roundTrips.count;
          const t0 = performance.now();
          const res = await handler(v2Event({ route: statsRoute, claims: who.claims }), lambdaContext(statsRoute));
          const ms = performance.now() - t0;
          if (res.statusCode !== 200) throw new Error(`/stats ${res.statusCode} ${res.body}`);
          if (i === 0) counts[which] = JSON.parse(res.body!).kpis.conversations;
          if (i >= WARMUP) {
            times[which].push(ms);
            rts[which].push(roundTrips.count - rt0);
          }
        }
      }
      const s = { p50: percentile(times.small, 50), p99: percentile(times.small, 99) };
      const b = { p50: percentile(times.big, 50), p99: percentile(times.big, 99) };
      const ratio = b.p50 / s.p50;
      json.stats = {
        seedMs: { small: seedSmall, big: seedBig },
        conversationsCounted: counts,
        small: s,
        big: b,
        ratioP50: ratio,
        roundTrips: { small: Math.max(...rts.small), big: Math.max(...rts.big) },
      };
      rows.push({
        section: '/stats',
        what: `100 conversations (counted ${counts.small}): p50/p99 ms, round trips`,
        measured: `${fmt(s.p50)}/${fmt(s.p99)}, ${Math.max(...rts.small)}`,
        budget: '',
        verdict: '',
      });
      rows.push({
        section: '/stats',
        what: `100,000 conversations (counted ${counts.big}): p50/p99 ms, round trips`,
        measured: `${fmt(b.p50)}/${fmt(b.p99)}, ${Math.max(...rts.big)}`,
        budget: `same within noise (p50 ratio ≤ ${BUDGET.statsRatio})`,
        verdict: ratio <= BUDGET.statsRatio ? 'ok' : 'OVER',
      });
      rows.push({
        section: '/stats',
        what: 'p50 ratio 100k / 100',
        measured: fmt(ratio),
        budget: `≤ ${BUDGET.statsRatio}`,
        verdict: ratio <= BUDGET.statsRatio ? 'ok' : 'OVER',
      });
    }

    // ---- /nlu/unanswered at 100,000 messages ---------------------------------------------------
    {
      const { seedUnanswered, benchUnanswered } = await import('./unanswered.ts');
      const busy = await newTenant(rt, 'Unanswered 100k');
      log('seeding 20,000 unanswered messages (100,000 messages, a fifth unanswered)');
      const seeded = await seedUnanswered(rt.dynamodbEndpoint, 'bench', busy.tenantId, 100_000, 0.2);
      log(`seeded in ${fmt(seeded.seedMs / 1000, 1)} s; timing /nlu/unanswered`);
      const u = await benchUnanswered(ROOT, busy.claims, 5, 50);
      json.unanswered = { ...seeded, ...u };
      rows.push({
        section: '/nlu/unanswered',
        what: `100,000 messages, ${seeded.items} unanswered (reads the newest 2,000; ${u.groups} groups of ${u.counted}): p50/p99 ms, round trips`,
        measured: `${fmt(u.p50)}/${fmt(u.p99)}, ${u.roundTrips}`,
        budget: `≤ ${BUDGET.roundTrips} round trips`,
        verdict: u.roundTrips <= BUDGET.roundTrips ? 'ok' : 'OVER',
      });
    }

    // ---- POST /chat/message under load --------------------------------------------------------
    log('load: POST /chat/message, 50 connections, 15 s');
    const load = await chatLoad(rt.url, t.widgetKey, 50, 15);
    json.load = load;
    rows.push({
      section: 'load',
      what: `POST /chat/message, ${load.connections} sessions, ${load.durationS} s (HTTP, local runtime)`,
      measured: `${fmt(load.rps, 0)} req/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms; 2xx ${load.status['2xx']}, 4xx ${load.status['4xx']}, 5xx ${load.status['5xx']}, errors ${load.errors}`,
      budget: '-',
      verdict: load.status['5xx'] || load.errors ? 'OVER' : '',
    });
  } finally {
    log('stopping the runtime');
    await rt.stop();
  }

  // ---- bundles --------------------------------------------------------------------------------
  log('bundling every function (esbuild, as infra/function.ts) and timing init');
  const { benchBundles, encoderRuntimeBytes } = await import('./bundles.ts');
  const b = await benchBundles(ROOT, 5);
  json.bundles = b;
  rows.push({
    section: 'bundle',
    what: 'empty handler: size, init ms',
    measured: `${kb(b.empty.bytes)}, ${fmt(b.empty.initMs, 1)}`,
    budget: '',
    verdict: '',
  });
  rows.push({
    section: 'bundle',
    what: "encoder's runtime beside the encoder functions' bundles (loaded on the first embedding)",
    measured: kb(encoderRuntimeBytes(ROOT)),
    budget: '',
    verdict: '',
  });
  for (const x of b.bundles) {
    const chat = x.handler.startsWith('chat/');
    rows.push({
      section: 'bundle',
      what: `${x.handler}: size, init ms (over empty)`,
      measured: `${kb(x.bytes)}, ${fmt(x.initMs, 1)} (+${fmt(x.initOverEmptyMs, 1)})`,
      budget: chat ? `≤ ${kb(BUDGET.chatBundle)}` : '-',
      verdict: chat ? (x.bytes <= BUDGET.chatBundle ? 'ok' : 'OVER') : '',
    });
  }

  json.elapsedS = (performance.now() - started) / 1000;
  json.rows = rows;
  const printed = table(rows);
  console.log(printed);
  console.log(
    `\nbench took ${fmt(json.elapsedS as number, 0)} s; db ms is the time at least one DynamoDB call was in flight (parallel calls count once).`,
  );
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'bench.json'), JSON.stringify(json, null, 2));
  console.log('wrote bench-results/bench.json');
}
