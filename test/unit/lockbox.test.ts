import { describe, expect, it } from 'vitest';
import { banking77Split, clincSplit, deskLockbox, drop, MAX_DROP_POINTS, stackFaqSplit } from '../bench/lockbox.ts';

// The benchmarks' lockbox (test/bench/lockbox.ts): carved by a fixed seed, disjoint from the tuning
// part, stratified, and the same whatever the order of the items.
const examples = Array.from({ length: 200 }, (_, i) => [`phrase ${i}`, `label${i % 4}`] as [string, string]);

describe('lockbox splits', () => {
  it('cuts a fifth of each BANKING77 intent into the lockbox, disjoint from the tuning part', () => {
    const locked = banking77Split(examples, 'lockbox');
    const tuning = banking77Split(examples, 'tuning');
    expect(locked.length + tuning.length).toBe(200);
    expect(locked.filter((x) => tuning.includes(x))).toEqual([]);
    for (let l = 0; l < 4; l++) expect(locked.filter(([, label]) => label === `label${l}`)).toHaveLength(10);
  });

  it('does not depend on the order of the items', () => {
    const reversed = [...examples].reverse();
    expect(new Set(banking77Split(reversed, 'lockbox').map(([t]) => t))).toEqual(
      new Set(banking77Split(examples, 'lockbox').map(([t]) => t)),
    );
  });

  it('halves CLINC150 val by intent and the out-of-scope messages of both files together', () => {
    const oos = (k: number) => Array.from({ length: 100 }, (_, i) => [`oos ${k} ${i}`, 'oos'] as [string, string]);
    const c = { val: examples, oos_train: oos(0), oos_val: oos(1) };
    const locked = clincSplit(c, 'lockbox');
    const tuning = clincSplit(c, 'tuning');
    expect([locked.val.length, tuning.val.length, locked.oos.length, tuning.oos.length]).toEqual([100, 100, 100, 100]);
    expect(locked.oos.filter((x) => tuning.oos.includes(x))).toEqual([]);
  });

  it('puts half of the StackFAQ threads, whole, in the lockbox', () => {
    const threads = Array.from({ length: 60 }, (_, i) => ({
      question: `how do I ${i}`,
      answers: [],
      rephrasings: [`r${i}`],
    }));
    const locked = stackFaqSplit(threads, 'lockbox');
    expect(locked).toHaveLength(30);
    expect(stackFaqSplit(threads, 'tuning').filter((t) => locked.includes(t))).toEqual([]);
  });

  it("takes half of each group of a help desk's held-out messages", () => {
    const held = Array.from({ length: 30 }, (_, i) => ({
      text: `m${i}`,
      group: ['intent', 'article', 'fallback'][i % 3]!,
    }));
    const locked = deskLockbox('shop', held);
    expect(locked.size).toBe(15);
    for (const g of ['intent', 'article', 'fallback'])
      expect(held.filter((m) => m.group === g && locked.has(m.text))).toHaveLength(5);
    expect(deskLockbox('other-shop', held)).not.toEqual(locked);
  });

  it('counts a lockbox figure as worse by how far it falls, or rises for a share that should stay low', () => {
    expect(drop({ tuning: 90, lockbox: 86 })).toBeGreaterThan(MAX_DROP_POINTS);
    expect(drop({ tuning: 90, lockbox: 88 })).toBeLessThanOrEqual(MAX_DROP_POINTS);
    expect(drop({ tuning: 10, lockbox: 14, higherIsBetter: false })).toBeGreaterThan(MAX_DROP_POINTS);
    expect(drop({ tuning: 10, lockbox: 5, higherIsBetter: false })).toBeLessThan(0);
  });
});
