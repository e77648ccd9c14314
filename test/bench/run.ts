// `npm run bench`: the performance benchmark against DynamoDB Local (ARCHITECTURE "Performance
// budget"). Prints a table and writes bench-results/bench.json, then the widget's figures
// (bench-results/widget.json), webhook delivery's (bench-results/webhooks.json), actions'
// (bench-results/actions.json) and the sentence encoder's (bench-results/encoder.json). Never part of `npm test`.
// `npm run bench -- --routes 'articles?q='` runs only the per-route rows whose label has that text
// (the fixture tenants are made as usual; nothing else is measured and no file is written);
// `npm run bench -- --knowledge` only the knowledge base's rows (the cold load, the warm search, the
// import), with `--routes` the named routes' rows too.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { routes: { type: 'string' }, knowledge: { type: 'boolean' } } });
if (args.routes) process.env.BENCH_ROUTES = args.routes;
if (args.knowledge) process.env.BENCH_KNOWLEDGE = '1';

// Quiet logs before any handler module (and its logger) loads.
process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';
const { main } = await import('./perf/main.ts');
await main();
if (args.routes || args.knowledge) process.exit(process.exitCode ?? 0);

// Each in a process of its own: each starts another local runtime, whose configuration is process-wide.
for (const script of ['./widget.ts', './webhooks.ts', './actions.ts', './encoder.ts']) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))], {
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exitCode = run.status ?? 1;
}
