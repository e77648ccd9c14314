import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { rng } from '#shared/nlu/index.ts';
import { datasetsDir } from '../kb/data.ts';

export type Example = [text: string, label: string];

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function loadBanking77(): Example[] {
  const rows = parse(readFileSync(resolve(datasetsDir(), 'banking77/train.csv')), {
    columns: true,
    skip_empty_lines: true,
  }) as Array<{ text: string; category: string }>;
  return rows.map((r) => [r.text, r.category]);
}

export interface Clinc {
  train: Example[];
  val: Example[];
  oos_train: Example[];
  oos_val: Example[];
}

export function loadClinc150(): Clinc {
  return JSON.parse(readFileSync(resolve(datasetsDir(), 'clinc150/data_full_train_val.json'), 'utf8')) as Clinc;
}

/** A copy of `xs` in the order a Fisher-Yates shuffle with `rand` gives. */
export function shuffle<T>(xs: readonly T[], rand: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

function byLabel(xs: Example[]): Map<string, Example[]> {
  const m = new Map<string, Example[]>();
  for (const x of xs) m.set(x[1], [...(m.get(x[1]) ?? []), x]);
  return m;
}

/** Stratified split: `share` of every label goes to the second part. */
export function stratifiedSplit(xs: Example[], share: number, seed: number): [Example[], Example[]] {
  const rand = rng(seed);
  const a: Example[] = [];
  const b: Example[] = [];
  for (const group of byLabel(xs).values()) {
    const s = shuffle(group, rand);
    const k = Math.round(s.length * share);
    b.push(...s.slice(0, k));
    a.push(...s.slice(k));
  }
  return [a, b];
}

export function perLabel(xs: Example[], k: number, seed: number): Example[] {
  const rand = rng(seed);
  return [...byLabel(xs).values()].flatMap((g) => shuffle(g, rand).slice(0, k));
}

export function toIntents(xs: Example[]): Array<{ name: string; trainingPhrases: string[] }> {
  return [...byLabel(xs)].map(([name, ex]) => ({ name, trainingPhrases: ex.map((e) => e[0]) }));
}
