import type { TestProject } from 'vitest/node';
import { startLocalRuntime, type LocalRuntime } from '../../bin/local/server.ts';

// One local runtime (DynamoDB Local + the HTTP server) per test run; every test makes its own tenant.
let runtime: LocalRuntime | undefined;

export async function setup(project: TestProject) {
  runtime = await startLocalRuntime({ tableName: 'support-assistant-test', trustVerdictHeader: true });
  project.provide('baseUrl', runtime.url);
  project.provide('dynamodbEndpoint', runtime.dynamodbEndpoint);
  project.provide('dynamoPid', runtime.dynamo?.process.pid ?? 0);
  project.provide('smtpPort', runtime.mail?.smtpPort ?? 0);
  await warmIndexer(runtime.url);
}

/**
 * The first tenant has the indexer load the sentence encoder and embed the starter intents, which
 * every later tenant shares: done once here, before the tests, instead of inside the first test
 * files while they wait on the same process.
 */
async function warmIndexer(url: string) {
  const json = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(url + path, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<any>;
  };
  const { accessToken } = await json('/local-idp/token', { method: 'POST', body: JSON.stringify({ sub: 'warm-up', email: 'warm-up@example.com' }) });
  const auth = { authorization: `Bearer ${accessToken}` };
  await json('/api/v1/admin/auth/onboard', { method: 'POST', headers: auth, body: JSON.stringify({ tenantName: 'Warm-up' }) });
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const { items } = await json('/api/v1/admin/intents', { headers: auth });
    if ((items as Array<{ indexing?: boolean }>).every((i) => !i.indexing)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the starter intents were not indexed within 2 minutes');
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext { baseUrl: string; dynamodbEndpoint: string; dynamoPid: number; smtpPort: number }
}
