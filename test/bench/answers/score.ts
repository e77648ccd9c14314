// Scoring of answers: right or wrong against what each message expects, shares per group, and the
// calibration error with its reliability table.
import type { Expect, Group } from './data.ts';

export type Got = { intent: string } | { article: string } | { fallback: true };
export interface Outcome {
  group: Group;
  right: boolean;
  answered: boolean;
  confidence: number; // of the answer, or of the best candidate when the fallback answered
  bestRight: boolean; // the best candidate (ignoring the thresholds) was right
  heldOut: boolean;
}

export function isRight(expect: Expect, got: Got): boolean {
  if ('intent' in expect) return 'intent' in got && got.intent === expect.intent;
  if ('article' in expect) return 'article' in got && got.article === expect.article;
  return 'fallback' in got;
}

const GROUPS: Group[] = ['intent', 'article', 'fallback'];

/** Share right per group (only groups with messages), their mean, the share right of all, and the count. */
export function shares(outcomes: ReadonlyArray<Pick<Outcome, 'group' | 'right'>>) {
  const rightOf = (rows: ReadonlyArray<Pick<Outcome, 'right'>>) =>
    rows.filter((o) => o.right).length / (rows.length || 1);
  const by: Partial<Record<Group, number>> = {};
  for (const g of GROUPS) {
    const rows = outcomes.filter((o) => o.group === g);
    if (rows.length) by[g] = rightOf(rows);
  }
  const values = Object.values(by);
  return {
    ...by,
    mean: values.reduce((a, b) => a + b, 0) / (values.length || 1),
    right: rightOf(outcomes),
    n: outcomes.length,
  };
}

/**
 * Expected calibration error over `pairs` (confidence of an answer, whether it was right) in 10
 * equal-width bins: the bins' |accuracy - mean confidence|, weighted by their share of the pairs.
 */
export function calibration(pairs: Array<{ confidence: number; right: boolean }>, bins = 10) {
  const table = Array.from({ length: bins }, (_, b) => ({
    from: b / bins,
    to: (b + 1) / bins,
    n: 0,
    confidence: 0,
    accuracy: 0,
  }));
  for (const p of pairs) {
    const t = table[Math.min(bins - 1, Math.floor(p.confidence * bins))]!;
    t.n++;
    t.confidence += p.confidence;
    t.accuracy += p.right ? 1 : 0;
  }
  let ece = 0;
  for (const t of table) {
    if (t.n === 0) continue;
    t.confidence /= t.n;
    t.accuracy /= t.n;
    ece += (t.n / (pairs.length || 1)) * Math.abs(t.accuracy - t.confidence);
  }
  return { ece, table };
}

export const pct = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1000) / 10);
