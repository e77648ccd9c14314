// The lockbox: for every data set the answer benchmarks read, a part carved once, by a fixed seed,
// that no fit, threshold, feature choice or special case ever reads. The benchmarks report each
// figure on the tuning part and on the lockbox; a lockbox figure more than 3 points under its
// tuning figure says a decision fitted the tuning part rather than the task.
//
// Every split is a stable sort by a SHA-1 of the seed, the data set and the item (FNV's low bits
// are a parity of the characters, see "The folds were the halves until now" in
// docs/decisions/003-knowledge-base-matching.md), stratified by label where there is one, so adding
// or reordering items moves no other item.
// Never change SEED or a share: the lockbox would no longer be one.
import { createHash } from 'node:crypto';
import type { Thread } from './kb/data.ts';

export const SEED = 'lockbox-2026-11-28';
export type Split = 'tuning' | 'lockbox';
export const SPLITS: readonly Split[] = ['tuning', 'lockbox'];
/** A lockbox figure more than this many points under its tuning figure fails the benchmark's check. */
export const MAX_DROP_POINTS = 3;

/** How far a lockbox figure is worse than its tuning figure, in points (positive: worse); `higherIsBetter` false for a share that should stay low. */
export const drop = (f: { tuning: number | undefined; lockbox: number | undefined; higherIsBetter?: boolean }) =>
  f.tuning === undefined || f.lockbox === undefined
    ? 0
    : f.higherIsBetter === false
      ? f.lockbox - f.tuning
      : f.tuning - f.lockbox;

const rank = (dataset: string, key: string) =>
  createHash('sha1').update(`${SEED}:${dataset}:${key}`).digest().readUInt32BE(0);

/** The items of `xs` that go to the lockbox: `share` of each label's items (by `labelOf`), chosen by hash. */
function carve<T>(
  dataset: string,
  xs: readonly T[],
  share: number,
  keyOf: (x: T) => string,
  labelOf: (x: T) => string = () => '',
): Set<T> {
  const byLabel = new Map<string, T[]>();
  for (const x of xs) byLabel.set(labelOf(x), [...(byLabel.get(labelOf(x)) ?? []), x]);
  const out = new Set<T>();
  for (const group of byLabel.values()) {
    const sorted = group
      .map((x) => ({ x, r: rank(dataset, keyOf(x)) }))
      .sort((a, b) => a.r - b.r || (keyOf(a.x) < keyOf(b.x) ? -1 : 1));
    for (const { x } of sorted.slice(0, Math.round(group.length * share))) out.add(x);
  }
  return out;
}

const part = <T>(xs: readonly T[], locked: Set<T>, split: Split) =>
  xs.filter((x) => locked.has(x) === (split === 'lockbox'));

type Example = [text: string, label: string];

/**
 * BANKING77 (train.csv): a fifth of each intent's phrases is the lockbox. The rest is the tuning
 * part, which the benchmarks cut again into a tenant's phrases and the messages it is asked.
 */
export function banking77Split(all: readonly Example[], split: Split): Example[] {
  return part(
    all,
    carve(
      'banking77',
      all,
      0.2,
      ([t, l]) => `${l}:${t}`,
      ([, l]) => l,
    ),
    split,
  );
}

/**
 * CLINC150: its train split stays every tenant's phrases (never asked); half of each intent's val
 * phrases is the lockbox, and half of the 200 out-of-scope messages (oos_train and oos_val
 * together). The calibration's tuning tenants ask the tuning part's out-of-scope messages only.
 */
export function clincSplit(
  c: { val: Example[]; oos_train: Example[]; oos_val: Example[] },
  split: Split,
): { val: Example[]; oos: Example[] } {
  const oos = [...c.oos_train, ...c.oos_val];
  return {
    val: part(
      c.val,
      carve(
        'clinc150-val',
        c.val,
        0.5,
        ([t, l]) => `${l}:${t}`,
        ([, l]) => l,
      ),
      split,
    ),
    oos: part(
      oos,
      carve('clinc150-oos', oos, 0.5, ([t]) => t),
      split,
    ),
  };
}

/** StackFAQ (dev.json): half of the threads, with all their rephrasings, are the lockbox. */
export function stackFaqSplit(threads: readonly Thread[], split: Split): Thread[] {
  return part(
    threads,
    carve('stackfaq', threads, 0.5, (t) => t.question),
    split,
  );
}

/**
 * The help desks (test/fixtures/helpdesks): the calibration fits on the messages not marked
 * held out (two thirds of the twelve tuning businesses); of the held-out ones (the other third, and
 * every message of the businesses held out whole), half of each business's groups is the lockbox,
 * the other half the tuning report's. Returns the lockbox's messages' texts of one business.
 */
export function deskLockbox(slug: string, heldOut: ReadonlyArray<{ text: string; group: string }>): Set<string> {
  return new Set(
    [
      ...carve(
        `helpdesk:${slug}`,
        heldOut,
        0.5,
        (m) => m.text,
        (m) => m.group,
      ),
    ].map((m) => m.text),
  );
}
