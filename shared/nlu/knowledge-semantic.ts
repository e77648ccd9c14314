// The knowledge index's sentence vectors: one per unit (title, question, passage), with the
// knowledge base's own main direction removed, and how close a message comes to an article by them.
import { MAX_QUERY_CHARS, words } from './knowledge-words.ts';
import { dot, principalDirection, removeAndNormalise, sentenceVector, type WordVectors } from './vectors.ts';

/** How close the message is to each article of `arts`, by sentence vectors (0 each without vectors). */
export type SemanticCloseness = (query: string, arts: readonly number[]) => number[];

/**
 * `unitVec`: each unit's sentence vector, in unit order (made with `sentenceVector` as the index
 * read the unit; normalised here); `firstUnit` as TermIndex's.
 */
export function semanticCloseness(
  vectors: WordVectors | null | undefined,
  unitVec: ReadonlyArray<Float32Array | null>,
  firstUnit: readonly number[],
): SemanticCloseness {
  // Sentence vectors: the knowledge base's own main direction removed from every unit and message.
  const direction = vectors ? principalDirection(unitVec.filter((x): x is Float32Array => x !== null)) : null;
  for (const x of unitVec) if (x) removeAndNormalise(x, direction);
  // The mean unit vector: a message's mean cosine to the knowledge base's units is its dot with it.
  const centroid = vectors ? new Float32Array(vectors.dim) : null;
  if (centroid) {
    const present = unitVec.filter((x): x is Float32Array => x !== null);
    for (const x of present) for (let i = 0; i < x.length; i++) centroid[i]! += x[i]! / present.length;
  }
  // How much closer the message is to the article's closest unit than to the knowledge base's
  // units on average: sentence vectors of any two shop questions are close, so only the
  // difference tells (and a one-article knowledge base tells nothing).
  const semanticOf = (query: string, arts: readonly number[]): number[] => {
    const q = vectors ? sentenceVector(vectors, words(query.slice(0, MAX_QUERY_CHARS))) : null;
    if (!q || !centroid) return arts.map(() => 0);
    removeAndNormalise(q, direction);
    const mean = dot(q, centroid);
    return arts.map((a) => {
      let best = mean;
      for (let u = firstUnit[a]!; u < firstUnit[a + 1]!; u++) {
        const x = unitVec[u];
        if (x) best = Math.max(best, dot(q, x));
      }
      return best - mean;
    });
  };
  return semanticOf;
}
