import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildDashboard } from '../../local/dashboard.ts';
import { chromiumPath } from './chromium.ts';

// One local runtime per run, serving the freshly built dashboard at `/`, and one demo host page (the
// widget's, another origin), in a child process (see runtime.ts); every test makes its own tenant
// through the API.
let child: ChildProcess | undefined;

export async function setup(project: TestProject) {
  chromiumPath(); // fail early, with the install command, when there is no browser
  await buildDashboard();
  const script = fileURLToPath(new URL('./runtime.ts', import.meta.url));
  child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ready = await new Promise<{
    baseUrl: string;
    hostUrl: string;
    dynamodbEndpoint: string;
    smtpPort: number;
    orderSecret: string;
  }>((resolve, reject) => {
    const lines = createInterface({ input: child!.stdout! });
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      try {
        resolve(JSON.parse(line));
      } catch (e) {
        reject(e as Error);
      }
    });
    child!.once('exit', (code) => reject(new Error(`the e2e runtime exited with ${code}`)));
  });
  project.provide('baseUrl', ready.baseUrl);
  project.provide('hostUrl', ready.hostUrl);
  project.provide('dynamodbEndpoint', ready.dynamodbEndpoint);
  project.provide('smtpPort', ready.smtpPort);
  project.provide('orderSecret', ready.orderSecret);
}

export async function teardown() {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child!.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    hostUrl: string;
    dynamodbEndpoint: string;
    smtpPort: number;
    orderSecret: string;
  }
}
