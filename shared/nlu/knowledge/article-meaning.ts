// The sentence encoder's evidence for articles: how close a message's vector comes to an article's
// title, questions and passages (its closest unit, and its closest key unit and passage apart),
// and the articles closest in meaning, which join the candidates that share a word with the
// message ("money back" finds the refunds article).
import { cosine, type TextVectors } from '../encoder/vector-math.ts';
import type { StoredArticle } from './passages.ts';

/** Each article's closest units' cosines to one message (NaN for an article without vectors). */
export interface Closeness {
  /** The closest unit of any kind. */
  best: Float64Array;
  /** The closest title or question (NaN when none has a vector). */
  key: Float64Array;
  /** The closest passage (NaN when none has a vector). */
  passage: Float64Array;
}

export interface ArticleMeaning {
  /** Whether any article has vectors. */
  readonly any: boolean;
  closeness(vector: Float32Array): Closeness;
  /** How many of article a's title and questions have vectors (its chances to come close). */
  keys(a: number): number;
  /** How close article a's title comes to the closest other article's title (NaN without vectors). */
  neighbour(a: number): number;
  /**
   * How crowded the knowledge base is: the mean of `neighbour` over (a sample of) its articles. In a
   * crowded one a message close to an article is less telling: a neighbour in topic is as close.
   */
  readonly crowd: number;
}

// Articles whose neighbours give the knowledge base's crowd: every k-th, at most this many (each
// compares its title with every other: 500 articles cost 16,000 cosines, once per index).
const CROWD_SAMPLE = 32;

export function articleMeaning(articles: readonly StoredArticle[], vectors: TextVectors | undefined): ArticleMeaning {
  // Passages too: on the help desks' tuning article messages the right article came first for 178 of
  // 238 with them, 150 with titles and questions alone (175 without the encoder).
  const of = (texts: string[]) =>
    vectors
      ? trimmed(texts)
          .map((t) => vectors.get(t))
          .filter((v): v is Float32Array => v !== undefined)
      : [];
  const keys = articles.map((art) => of([art.title, ...art.questions]));
  const passages = articles.map((art) => of(art.passages));
  const any = keys.some((u) => u.length > 0) || passages.some((u) => u.length > 0);
  const closest = (vector: Float32Array, us: Float32Array[]) => {
    let best = us.length === 0 ? Number.NaN : -1;
    for (const u of us) best = Math.max(best, cosine(vector, u));
    return best;
  };
  const titles = articles.map((art) => (vectors ? vectors.get(art.title.trim()) : undefined));
  const neighbour = (a: number) => {
    const t = titles[a];
    if (!t) return Number.NaN;
    let best = -1;
    for (let b = 0; b < titles.length; b++) {
      const u = titles[b];
      if (u && b !== a) best = Math.max(best, cosine(t, u));
    }
    return best;
  };
  let crowdMemo: number | undefined;
  const crowd = () => {
    if (crowdMemo !== undefined) return crowdMemo;
    const stride = Math.max(1, Math.ceil(articles.length / CROWD_SAMPLE));
    let sum = 0;
    let n = 0;
    for (let a = 0; a < articles.length; a += stride) {
      const c = neighbour(a);
      if (!Number.isNaN(c) && c > -1) {
        sum += c;
        n++;
      }
    }
    crowdMemo = n > 0 ? sum / n : Number.NaN;
    return crowdMemo;
  };
  return {
    any,
    neighbour,
    keys: (a) => keys[a]!.length,
    get crowd() {
      return crowd();
    },
    closeness(vector) {
      const n = articles.length;
      const out = { best: new Float64Array(n), key: new Float64Array(n), passage: new Float64Array(n) };
      for (let a = 0; a < n; a++) {
        const k = closest(vector, keys[a]!);
        const p = closest(vector, passages[a]!);
        out.key[a] = k;
        out.passage[a] = p;
        out.best[a] = Number.isNaN(k) ? p : Number.isNaN(p) ? k : Math.max(k, p);
      }
      return out;
    },
  };
}

const trimmed = (texts: Iterable<string>) => [...texts].map((t) => t.trim()).filter((t) => t.length > 0);

/** An article's texts as the knowledge index stores them: its title, its questions, its passages. */
export function articleTextsToEmbed(article: Pick<StoredArticle, 'title' | 'questions' | 'passages'>): string[] {
  return trimmed([article.title, ...article.questions, ...article.passages]);
}
