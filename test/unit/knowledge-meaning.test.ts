import { describe, expect, it } from 'vitest';
import {
  type ArticleEvidence,
  articleMeaning,
  articleProbability,
  buildKnowledgeIndex,
  DIMS,
  type StoredArticle,
  type TextVectors,
  unit,
} from '#shared/nlu/index.ts';

// The encoder's evidence for articles with hand-made vectors: each text a mix of a few axes, so
// that every cosine is known.
const vec = (parts: Record<number, number>) => {
  const v = new Float32Array(DIMS);
  for (const [axis, x] of Object.entries(parts)) v[Number(axis)] = x;
  return unit(v);
};
const article = (id: string, title: string, passages: string[], questions: string[] = []): StoredArticle => ({
  id,
  title,
  url: null,
  tags: [],
  questions,
  passages,
});
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

  it('measures how crowded the knowledge base is by its titles', () => {
    const m = articleMeaning(articles, vectors);
    // Refunds and Returns are each other's neighbour (cos 1/sqrt 2); Delivery has none near (0).
    expect(m.neighbour(0)).toBeCloseTo(Math.SQRT1_2, 5);
    expect(m.neighbour(2)).toBeCloseTo(0, 5);
    expect(m.crowd).toBeCloseTo((2 * Math.SQRT1_2) / 3, 5);
    expect(articleMeaning(articles, undefined).any).toBe(false);
    expect(articleMeaning(articles, undefined).crowd).toBeNaN();
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
    expect(f.meaningCrowd).toBeCloseTo((2 * Math.SQRT1_2) / 3, 5);
    expect(f.meaningKeys).toBe(2); // its title and its question
    // Without the message's vector: words only, no encoder features.
    expect(index.search('my money back')[0]?.features.meaning).toBeUndefined();
  });

  it('gives no gap to the only article of a knowledge base: standing out of nothing is no evidence', () => {
    const only = buildKnowledgeIndex([articles[0]!], { vectors });
    const f = only.search('my money back', { vector: vec({ 0: 1, 1: 1 }) })[0]!.features;
    expect(f.meaning).toBeCloseTo(1, 5);
    expect([f.meaningGap, f.meaningKeyGap, f.meaningPassageGap, f.meaningLift]).toEqual([0, 0, 0, 0]);
    expect(f.meaningCrowd).toBeUndefined();
  });

  it('counts the same evidence for less in a crowded knowledge base than in a sparse one', () => {
    // A neighbour in topic: close in meaning, a small gap over the next article, some words shared.
    const evidence = (crowd: number): ArticleEvidence => ({
      confidence: 0.25,
      margin: 0.1,
      candidates: 30,
      features: {
        key: 0.2,
        title: 0.2,
        question: 0,
        passage: 0.3,
        similarity: 0.25,
        unseen: 0,
        body: 0.1,
        semantic: 0.4,
        spelling: 0.2,
        meaning: 0.7,
        meaningKey: 0.7,
        meaningPassage: 0.6,
        meaningLift: 0.2,
        meaningGap: 0.02,
        meaningKeyGap: 0.02,
        meaningPassageGap: 0,
        meaningCrowd: crowd,
      },
    });
    expect(articleProbability(evidence(0.75))).toBeLessThan(articleProbability(evidence(0.55)));
  });
});
