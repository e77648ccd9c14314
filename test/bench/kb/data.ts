import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Thread {
  question: string;
  answers: string[];
  rephrasings: string[];
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `<repo>/../shared/datasets`, else the nearest `shared/datasets` above the checkout (a worktree sits deeper). */
export function datasetsDir(): string {
  if (process.env.DATASETS_DIR) return process.env.DATASETS_DIR;
  for (let dir = resolve(repoRoot, '..'); ; dir = dirname(dir)) {
    const candidate = resolve(dir, 'shared/datasets');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('shared/datasets not found above the checkout (set DATASETS_DIR)');
  }
}

export function loadStackFaq(): Thread[] {
  return JSON.parse(readFileSync(resolve(datasetsDir(), 'stackfaq/dev.json'), 'utf8')) as Thread[];
}
