// The knowledge index's sentence vectors: one per unit (title, question, passage), with the
// knowledge base's own main direction removed, and how close a message comes to an article by them.
import type { StoredArticle } from './passages.ts';
import { unitTexts } from './terms.ts';
import { MAX_QUERY_CHARS, words } from './words.ts';
import { dot, principalDirection, removeAndNormalise, sentenceVector, type WordVectors } from '../encoder/glove.ts';

/** How close the message is to each article of `arts`, by sentence vectors (0 each without vectors). */
export type SemanticCloseness = (query: string, arts: readonly number[]) => number[];

// The units whose sentence vectors give the knowledge base's main direction and mean: a bigger
// knowledge base takes every k-th unit for them, and reads an article's other units when the
// article is first ranked (building the index of 500 articles of 5,000 characters read every
// unit's vector: 46 ms of its 145).
const SAMPLE = 2_000;

/** The sentence vectors of the articles' units (see knowledge-terms.ts `unitTexts`), made when needed. */
export function semanticCloseness(
  vectors: WordVectors | null | undefined,
  articles: readonly StoredArticle[],
): SemanticCloseness {
  if (!vectors) return (_query, arts) => arts.map(() => 0);
  const texts = articles.map((art) => unitTexts(art).map(([, text]) => text));
  const stride = Math.ceil(texts.reduce((n, ts) => n + ts.length, 0) / SAMPLE) || 1;
  const vectorOf = (text: string) => sentenceVector(vectors, words(text));
  // Each article's unit vectors, normalised: all of them up front when every unit is sampled.
  const unitVec: Array<Array<Float32Array | null> | undefined> = new Array(articles.length);
  const sample: Float32Array[] = [];
  let u = 0;
  texts.forEach((ts, a) => {
    const all = stride === 1 ? ts.map(vectorOf) : null;
    if (all) unitVec[a] = all;
    ts.forEach((text, k) => {
      if (u++ % stride !== 0) return;
      const x = all ? all[k] : vectorOf(text);
      if (x) sample.push(x);
    });
  });
  // Sentence vectors: the knowledge base's own main direction removed from every unit and message.
  const direction = principalDirection(sample);
  for (const x of sample) removeAndNormalise(x, direction);
  // The mean unit vector: a message's mean cosine to the knowledge base's units is its dot with it.
  const centroid = new Float32Array(vectors.dim);
  for (const x of sample) for (let i = 0; i < x.length; i++) centroid[i]! += x[i]! / sample.length;
  const unitsOf = (a: number) => {
    unitVec[a] ??= texts[a]!.map((text) => {
      const x = vectorOf(text);
      return x && removeAndNormalise(x, direction);
    });
    return unitVec[a];
  };
  // How much closer the message is to the article's closest unit than to the knowledge base's
  // units on average: sentence vectors of any two shop questions are close, so only the
  // difference tells (and a one-article knowledge base tells nothing).
  const semanticOf = (query: string, arts: readonly number[]): number[] => {
    const q = sentenceVector(vectors, words(query.slice(0, MAX_QUERY_CHARS)));
    if (!q || sample.length === 0) return arts.map(() => 0);
    removeAndNormalise(q, direction);
    const mean = dot(q, centroid);
    return arts.map((a) => {
      let best = mean;
      const us = unitsOf(a);
      for (let k = 0; k < us.length; k++) {
        const x = us[k];
        if (x) best = Math.max(best, dot(q, x));
      }
      return best - mean;
    });
  };
  return semanticOf;
}
