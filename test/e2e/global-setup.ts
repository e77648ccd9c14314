import type { TestProject } from 'vitest/node';
import { buildDashboard } from '../../bin/local/dashboard.ts';
import { startLocalRuntime, type LocalRuntime } from '../../bin/local/server.ts';

// One local runtime for the browser tests, serving the freshly built dashboard at `/`.
let runtime: LocalRuntime | undefined;

export async function setup(project: TestProject) {
  await buildDashboard();
  // Global setups share one process, and the handlers read their table and DynamoDB endpoint from
  // its environment: when another project's runtime (integration) has set them, use the same.
  const shared = process.env.DYNAMODB_ENDPOINT && process.env.TABLE_NAME
    ? { dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT, tableName: process.env.TABLE_NAME }
    : { tableName: 'support-assistant-e2e' };
  runtime = await startLocalRuntime({ ...shared, dashboard: {} });
  project.provide('baseUrl', runtime.url);
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext { baseUrl: string }
}
