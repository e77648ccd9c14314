import { describe, expect, it } from 'vitest';
import {
  ARTICLE_FEATURES,
  ARTICLE_MEANING_FEATURES,
  articleFeatures,
  CALIBRATION_FILE,
  INTENT_FEATURES,
  INTENT_MEANING_FEATURES,
  intentFeatures,
} from '#shared/nlu/index.ts';

// shared/nlu/policy/calibration.json is written by test/bench/answers/fit.ts: its models must name
// the features the code computes, in the code's order, one weight each.
describe('the answer policy calibration file', () => {
  const expected = {
    intent: INTENT_FEATURES,
    intentMeaning: INTENT_MEANING_FEATURES,
    article: ARTICLE_FEATURES,
    articleMeaning: ARTICLE_MEANING_FEATURES,
  };

  it.each(Object.entries(expected))(
    '%s names the features the code computes, with a finite weight each',
    (kind, names) => {
      const model = CALIBRATION_FILE.models[kind as keyof typeof expected];
      expect(model.features).toEqual([...names]);
      expect(model.weights).toHaveLength(names.length);
      expect(model.weights.every(Number.isFinite)).toBe(true);
    },
  );

  it('computes as many features as it names, with and without the encoder', () => {
    const intent = {
      confidence: 0.6,
      margin: 0.2,
      cover: 0.5,
      similarity: 0.4,
      spelling: 0.3,
      candidates: 8,
      inScope: 0.9,
    };
    expect(intentFeatures(intent)).toHaveLength(INTENT_FEATURES.length);
    expect(intentFeatures({ ...intent, meaning: 0.7, meaningMargin: 0.1 })).toHaveLength(
      INTENT_MEANING_FEATURES.length,
    );
    const features = {
      key: 0.2,
      title: 0.2,
      question: 0,
      passage: 0.3,
      similarity: 0.25,
      unseen: 0,
      body: 0.1,
      semantic: 0.4,
      spelling: 0.2,
    };
    const article = { confidence: 0.3, margin: 0.1, candidates: 12, features };
    expect(articleFeatures(article)).toHaveLength(ARTICLE_FEATURES.length);
    expect(articleFeatures({ ...article, features: { ...features, meaning: 0.7, meaningKeys: 2 } })).toHaveLength(
      ARTICLE_MEANING_FEATURES.length,
    );
  });

  it("doubles the article features with the encoder's evidence, the second half for a crowded knowledge base", () => {
    const sparse = ARTICLE_MEANING_FEATURES.slice(0, ARTICLE_MEANING_FEATURES.length / 2);
    expect(ARTICLE_MEANING_FEATURES.slice(sparse.length)).toEqual(sparse.map((n) => `crowded x ${n}`));
  });

  it('says where each model came from and which data it never read', () => {
    expect(CALIBRATION_FILE.version).toBeGreaterThan(0);
    expect(CALIBRATION_FILE.provenance.script).toBe('test/bench/answers/fit.ts');
    expect(CALIBRATION_FILE.provenance.neverRead).toEqual(expect.any(String));
    for (const model of Object.values(CALIBRATION_FILE.models))
      expect(model.fitted).toMatchObject({ command: expect.any(String), data: expect.any(String) });
  });
});
