import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ArticleInput, rng, splitSentences } from '#shared/nlu/index.ts';

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

/** `count` articles of about `chars` characters, sentences drawn from the threads' answers, titles from their questions. */
export function syntheticArticles(threads: Thread[], count: number, chars: number): ArticleInput[] {
  const rand = rng(7);
  const pool = threads.flatMap((t) => t.answers.flatMap((a) => splitSentences(a)));
  const titles = threads.map((t) => t.question);
  return Array.from({ length: count }, (_, i) => {
    const paragraphs: string[] = [];
    let size = 0;
    while (size < chars) {
      const p = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pool[Math.floor(rand() * pool.length)]!).join(
        ' ',
      );
      paragraphs.push(rand() < 0.2 ? `- ${p}` : p);
      size += p.length + 2;
    }
    return { id: `s${i}`, title: `${titles[i % titles.length]} (${i})`, body: paragraphs.join('\n\n') };
  });
}
