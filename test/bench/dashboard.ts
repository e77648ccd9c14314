// `npm run bench:dashboard`: the dashboard's budget (ARCHITECTURE "Performance budget"):
// initial JavaScript gzipped, from the Vite build manifest, and the time from signing in on the
// local issuer's page to the overview showing its figures, for a tenant with 10,000 conversations.
// Writes bench-results/dashboard.json. Never part of `npm test`.
process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumPath } from '../e2e/chromium.ts';

const { buildDashboard, DASHBOARD_DIST } = await import('../../local/dashboard.ts');
const { subForEmail } = await import('../../local/idp.ts');
const { startLocalRuntime } = await import('../../local/runtime.ts');

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BUDGET = { initialJsKb: 250, overviewMs: 1000 };

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}

/** The entry chunk and every chunk it imports statically: what the browser loads before the first screen. */
async function initialJs(): Promise<{ files: string[]; gzipBytes: number; rawBytes: number }> {
  const manifest = JSON.parse(await readFile(join(DASHBOARD_DIST, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entry) throw new Error('no entry in the manifest');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const i of manifest[key]!.imports ?? []) visit(i);
  };
  visit(entry);
  const files = [...seen].map((k) => manifest[k]!.file);
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const f of files) {
    const data = await readFile(join(DASHBOARD_DIST, f));
    rawBytes += data.length;
    gzipBytes += gzipSync(data, { level: 9 }).length;
  }
  return { files, gzipBytes, rawBytes };
}

await buildDashboard();
const js = await initialJs();

const runtime = await startLocalRuntime({ tableName: 'support-assistant-bench-dashboard', dashboard: {} });
// The data modules read their configuration when first loaded: after the runtime has set it.
const { seedConversations } = await import('./perf/stats-scale.ts');
const browser = await chromium.launch({
  executablePath: chromiumPath(),
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
const timings: number[] = [];
try {
  const email = `bench-${Date.now()}@example.com`;
  const token = await runtime.idp.token({ sub: subForEmail(email), email });
  const onboard = await fetch(`${runtime.url}/api/v1/admin/auth/onboard`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tenantName: 'Bench Shop' }),
  });
  const body = (await onboard.json()) as { tenant?: { id: string } };
  if (!body.tenant) throw new Error(`onboarding failed: ${onboard.status} ${JSON.stringify(body)}`);
  const tenantId = body.tenant.id;
  const seedMs = await seedConversations(runtime.dynamodbEndpoint, process.env.TABLE_NAME!, tenantId, CONVERSATIONS);
  console.log(`seeded ${CONVERSATIONS} conversations in ${(seedMs / 1000).toFixed(1)} s`);

  // Run 0 is the first request each handler module gets in this process (a cold start, as a
  // Lambda's first invocation); it is reported apart from the warm runs.
  for (let run = 0; run <= RUNS; run++) {
    // A fresh browser profile each run: nothing cached, as on a first visit.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: runtime.url });
    const page = await context.newPage();
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(email);
    // From the moment the sign-in form is posted (not counting the automation's own click handling).
    let t0 = performance.now();
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/local-idp/authorize')) t0 = performance.now();
    });
    if (process.env.BENCH_TRACE) {
      page.on('request', (r) =>
        console.log(
          `${Math.round(performance.now() - t0)} ms -> ${r.method()} ${r.url().replace(runtime.url, '').slice(0, 80)}`,
        ),
      );
      page.on('response', (r) =>
        console.log(
          `${Math.round(performance.now() - t0)} ms <- ${r.status()} ${r.url().replace(runtime.url, '').slice(0, 80)}`,
        ),
      );
    }
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('.kpi', { hasText: 'Conversations' })
      .locator('dd')
      .filter({ hasText: /\d/ })
      .waitFor({ timeout: 30_000 });
    await page.getByRole('region', { name: 'Recent conversations' }).getByRole('link').first().waitFor();
    timings.push(performance.now() - t0);
    await context.close();
  }
} finally {
  await browser.close();
  await runtime.stop();
}

const [cold, ...warm] = timings as [number, ...number[]];
const sorted = [...warm].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
const result = {
  initialJs: {
    files: js.files,
    rawKb: +(js.rawBytes / 1024).toFixed(1),
    gzipKb: +(js.gzipBytes / 1024).toFixed(1),
    budgetKb: BUDGET.initialJsKb,
  },
  overview: {
    conversations: CONVERSATIONS,
    coldMs: Math.round(cold),
    warmRuns: warm.map((t) => Math.round(t)),
    medianMs: Math.round(median),
    maxMs: Math.round(sorted.at(-1)!),
    budgetMs: BUDGET.overviewMs,
  },
};
console.table([
  {
    what: 'initial JS, gzipped',
    measured: `${result.initialJs.gzipKb} KB`,
    budget: `${BUDGET.initialJsKb} KB`,
    ok: result.initialJs.gzipKb <= BUDGET.initialJsKb,
  },
  {
    what: `overview after sign-in, ${CONVERSATIONS} conversations (median of ${RUNS})`,
    measured: `${result.overview.medianMs} ms`,
    budget: `${BUDGET.overviewMs} ms`,
    ok: median <= BUDGET.overviewMs,
  },
  { what: 'overview after sign-in, slowest warm run', measured: `${result.overview.maxMs} ms`, budget: '', ok: '' },
  {
    what: 'overview after sign-in, first run (handlers cold)',
    measured: `${result.overview.coldMs} ms`,
    budget: '',
    ok: '',
  },
]);
await mkdir('bench-results', { recursive: true });
await writeFile('bench-results/dashboard.json', `${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
