import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

// Where `npm start` records the address it serves on, so that `npm run token` finds the running
// service whatever its port (the file is removed when the service stops).
export const RUNTIME_FILE = '.local-data/runtime.json';

export async function recordRuntime(url: string): Promise<void> {
  await mkdir(dirname(RUNTIME_FILE), { recursive: true });
  await writeFile(RUNTIME_FILE, `${JSON.stringify({ url, pid: process.pid })}\n`);
}

export const forgetRuntime = () => rm(RUNTIME_FILE, { force: true });
