import type { TestProject } from 'vitest/node';
import { buildDashboard } from '../../bin/local/dashboard.ts';
import { startLocalRuntime, type LocalRuntime } from '../../bin/local/server.ts';

// One local runtime for the browser tests, serving the freshly built dashboard at `/`.
let runtime: LocalRuntime | undefined;

export async function setup(project: TestProject) {
  await buildDashboard();
  runtime = await startLocalRuntime({ tableName: 'support-assistant-e2e', dashboard: {} });
  project.provide('baseUrl', runtime.url);
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext { baseUrl: string }
}
