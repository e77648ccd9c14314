import { beforeEach, describe, expect, it } from 'vitest';
import { TenantModelCache } from '#shared/core/model-cache.ts';
import { type Classifier, trainClassifier, type TrainingIntent } from '#shared/nlu/index.ts';

const v1: TrainingIntent[] = [
  { name: 'greeting', trainingPhrases: ['hi', 'hello', 'good morning', 'hey there'] },
  { name: 'goodbye', trainingPhrases: ['bye', 'goodbye', 'see you later', 'have a nice day'] },
];
const v2: TrainingIntent[] = [
  ...v1,
  {
    name: 'refund',
    trainingPhrases: ['I want a refund', 'money back please', 'refund my order', 'how do refunds work'],
  },
];

function counting(intents: TrainingIntent[]) {
  let calls = 0;
  return {
    load: async () => {
      calls++;
      return intents;
    },
    calls: () => calls,
  };
}

// The cache as the assistant uses it: a model trained from the tenant's intents, per version.
let cache: TenantModelCache<Classifier>;
const classifierFor = (tenantId: string, version: number, load: () => Promise<TrainingIntent[]>) =>
  cache.get(tenantId, version, () => load().then((intents) => trainClassifier(intents)));

describe('TenantModelCache', () => {
  beforeEach(() => {
    cache = new TenantModelCache<Classifier>();
  });

  it('returns the same instance for the same version and loads once', async () => {
    const l = counting(v1);
    const a = await classifierFor('t1', 1, l.load);
    const b = await classifierFor('t1', 1, l.load);
    expect(b).toBe(a);
    expect(l.calls()).toBe(1);
  });

  it('concurrent callers for one key share one load', async () => {
    const l = counting(v1);
    const all = await Promise.all(Array.from({ length: 10 }, () => classifierFor('t1', 1, l.load)));
    expect(new Set(all).size).toBe(1);
    expect(l.calls()).toBe(1);
  });

  it('retrains on a new version, and the new model knows the changed intents', async () => {
    const a = await classifierFor('t1', 1, counting(v1).load);
    expect(a.classify('I want a refund', 5).map((r) => r.intent)).not.toContain('refund');
    const b = await classifierFor('t1', 2, counting(v2).load);
    expect(b).not.toBe(a);
    expect(b.classify('I want a refund')[0]!.intent).toBe('refund');
  });

  it('keeps tenants apart', async () => {
    const a = await classifierFor('t1', 1, counting(v1).load);
    const b = await classifierFor('t2', 1, counting(v2).load);
    expect(b).not.toBe(a);
    expect(await classifierFor('t1', 1, counting(v2).load)).toBe(a);
  });

  it('evicts the least recently used tenant beyond its bound', async () => {
    cache = new TenantModelCache<Classifier>(2);
    const a = await classifierFor('a', 1, counting(v1).load);
    await classifierFor('b', 1, counting(v1).load);
    await classifierFor('a', 1, counting(v1).load); // a is now the most recent
    await classifierFor('c', 1, counting(v1).load); // evicts b
    expect(await classifierFor('a', 1, counting(v1).load)).toBe(a);
    const lb = counting(v1);
    await classifierFor('b', 1, lb.load);
    expect(lb.calls()).toBe(1);
  });

  it('does not cache a failed load', async () => {
    await expect(
      classifierFor('t1', 1, async () => {
        throw new Error('db down');
      }),
    ).rejects.toThrow('db down');
    const l = counting(v1);
    await classifierFor('t1', 1, l.load);
    expect(l.calls()).toBe(1);
  });
});
