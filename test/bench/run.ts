// `npm run bench`: the performance benchmark against DynamoDB Local (ARCHITECTURE "Performance
// budget"). Prints a table and writes bench-results/bench.json, then the widget's figures
// (bench-results/widget.json). Never part of `npm test`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Quiet logs before any handler module (and its logger) loads.
process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';
const { main } = await import('./perf/main.ts');
await main();

// In a process of its own: it starts another local runtime, whose configuration is process-wide.
const widget = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./widget.ts', import.meta.url))], { stdio: 'inherit' });
if (widget.status !== 0) process.exitCode = widget.status ?? 1;
