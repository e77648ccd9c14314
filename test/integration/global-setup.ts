import type { TestProject } from 'vitest/node';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { untilIntentsIndexed } from '../fixtures/indexed.ts';
import { onboard } from './client.ts';

// One local runtime (DynamoDB Local + the HTTP server) per test run; every test makes its own tenant.
let runtime: LocalRuntime | undefined;

export async function setup(project: TestProject) {
  runtime = await startLocalRuntime({ tableName: 'support-assistant-test', trustVerdictHeader: true });
  project.provide('baseUrl', runtime.url);
  project.provide('dynamodbEndpoint', runtime.dynamodbEndpoint);
  project.provide('dynamoPid', runtime.dynamo?.process.pid ?? 0);
  project.provide('smtpPort', runtime.mail?.smtpPort ?? 0);
  project.provide('standInsUrl', runtime.standInsUrl);
  project.provide('mailUrl', runtime.mailUrl);
  await warmIndexer(runtime.url);
}

/** The first tenant has the indexer load the encoder and embed the starter intents: done here, once. */
async function warmIndexer(url: string) {
  const token = await fetch(`${url}/local-idp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'warm-up', email: 'warm-up@example.com' }),
  }).then(async (r) => ((await r.json()) as { accessToken: string }).accessToken);
  // The run's first writes meet a DynamoDB Local that has just started (and, on CI, a busy machine).
  await onboard(url, token, 'Warm-up');
  await untilIntentsIndexed(url, token);
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    dynamodbEndpoint: string;
    dynamoPid: number;
    smtpPort: number;
    standInsUrl: string;
    mailUrl: string;
  }
}
