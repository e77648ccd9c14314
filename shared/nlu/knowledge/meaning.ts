// The sentence encoder's evidence for articles: how close a message's vector comes to an article's
// title, questions and passages (its closest unit), and the articles closest in meaning, which
// join the candidates that share a word with the message ("money back" finds the refunds article).
import { cosine, type TextVectors } from '../encoder/vectors.ts';
import { articleTextsToEmbed } from '../encoder/to-embed.ts';
import type { StoredArticle } from './passages.ts';

export interface ArticleMeaning {
  /** Whether any article has vectors. */
  readonly any: boolean;
  /** Each article's closest unit's cosine to the message (NaN for an article without vectors). */
  closeness(vector: Float32Array): Float64Array;
}

export function articleMeaning(articles: readonly StoredArticle[], vectors: TextVectors | undefined): ArticleMeaning {
  const units = articles.map((art) => (vectors ? articleTextsToEmbed(art).map((t) => vectors.get(t)).filter((v): v is Float32Array => v !== undefined) : []));
  const any = units.some((u) => u.length > 0);
  return {
    any,
    closeness(vector) {
      const out = new Float64Array(articles.length);
      units.forEach((us, a) => {
        let best = us.length === 0 ? Number.NaN : -1;
        for (const u of us) best = Math.max(best, cosine(vector, u));
        out[a] = best;
      });
      return out;
    },
  };
}
