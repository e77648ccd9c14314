// `npm run bench`: the performance benchmark against DynamoDB Local (ARCHITECTURE "Performance
// budget"). Prints a table and writes bench-results/bench.json. Never part of `npm test`.
// Quiet logs before any handler module (and its logger) loads.
process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';
const { main } = await import('./perf/main.ts');
await main();
