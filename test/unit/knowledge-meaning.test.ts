import { describe, expect, it } from 'vitest';
import { DIMS, unit, type TextVectors } from '#shared/nlu/encoder/vector-math.ts';
import { articleMeaning } from '#shared/nlu/knowledge/article-meaning.ts';
import { buildKnowledgeIndex, type StoredArticle } from '#shared/nlu/knowledge/retrieval.ts';

// The encoder's evidence for articles with hand-made vectors: each text a mix of a few axes, so
// that every cosine is known.
const vec = (parts: Record<number, number>) => {
  const v = new Float32Array(DIMS);
  for (const [axis, x] of Object.entries(parts)) v[Number(axis)] = x;
  return unit(v);
};
const article = (id: string, title: string, passages: string[], questions: string[] = []): StoredArticle =>
  ({ id, title, url: null, tags: [], questions, passages });
const articles = [
  article('refunds', 'Refunds', ['We refund within 30 days.'], ['can I get my money back']),
  article('returns', 'Returns', ['Send it back with the label.']),
  article('delivery', 'Delivery', ['Parcels take two days.']),
];
const vectors: TextVectors = new Map([
  ['Refunds', vec({ 0: 1 })],
  ['can I get my money back', vec({ 0: 1, 1: 1 })],
  ['We refund within 30 days.', vec({ 0: 1, 2: 1 })],
  ['Returns', vec({ 0: 1, 3: 1 })],
  ['Send it back with the label.', vec({ 3: 1 })],
  ['Delivery', vec({ 4: 1 })],
  ['Parcels take two days.', vec({ 4: 1, 5: 1 })],
]);

describe('knowledge meaning', () => {
  it('keeps the closest title or question and the closest passage apart, and the best of both', () => {
    const m = articleMeaning(articles, vectors);
    const c = m.closeness(vec({ 1: 1 }));
    expect(c.key[0]).toBeCloseTo(Math.SQRT1_2, 5); // the question
    expect(c.passage[0]).toBeCloseTo(0, 5);
    expect(c.best[0]).toBeCloseTo(Math.SQRT1_2, 5);
    expect(c.best[2]).toBeCloseTo(0, 5);
  });

  it('gives each hit its gaps over the closest other article, by kind of text', () => {
    const index = buildKnowledgeIndex(articles, { vectors });
    const [hit] = index.search('my money back', { vector: vec({ 0: 1, 1: 1 }) });
    expect(hit!.articleId).toBe('refunds');
    const f = hit!.features;
    expect(f.meaning).toBeCloseTo(1, 5);
    expect(f.meaningKey).toBeCloseTo(1, 5);
    // Returns' title is the closest other key (1/2), Refunds' own passage the closest passage.
    expect(f.meaningKeyGap).toBeCloseTo(1 - 0.5, 5);
    expect(f.meaningGap).toBeCloseTo(1 - 0.5, 5);
    expect(f.meaningPassageGap).toBeGreaterThan(0);
    expect(f.meaningKeys).toBe(2); // its title and its question
    // Without the message's vector: words only, no encoder features.
    expect(index.search('my money back')[0]?.features.meaning).toBeUndefined();
  });

  it('gives no gap to the only article of a knowledge base: standing out of nothing is no evidence', () => {
    const only = buildKnowledgeIndex([articles[0]!], { vectors });
    const f = only.search('my money back', { vector: vec({ 0: 1, 1: 1 }) })[0]!.features;
    expect(f.meaning).toBeCloseTo(1, 5);
    expect([f.meaningGap, f.meaningKeyGap, f.meaningPassageGap, f.meaningLift]).toEqual([0, 0, 0, 0]);
  });
});
