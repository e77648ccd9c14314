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
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext { baseUrl: string; dynamodbEndpoint: string; dynamoPid: number; smtpPort: number }
}
