// The knowledge index's rankings: the best few articles for a message (ranked by their words'
// evidence, the best SEMANTIC_POOL ranked again with their sentence vectors, reported with the
// calibrated confidence), every matching article in order, and one page of that order.
import type { Features, ScoreWeights } from './scoring.ts';
import type { Matcher } from './evidence.ts';
import type { SemanticCloseness } from './semantic.ts';
import type { PhraseSpelling } from './phrase-spelling.ts';
import type { ArticleMeaning, Closeness } from './article-meaning.ts';

export interface Candidate {
  article: number;
  features: Features;
  score: number;
  bestPassage: number;
}

type Ranked = { articleId: string; confidence: number };

export interface Ranker {
  /** The best `limit` articles for a message, best first (ties: the earlier article). */
  rank(query: string, limit: number, vector?: Float32Array): Candidate[];
  rankAll(query: string): Ranked[];
  rankPage(query: string, limit: number, from?: Ranked | null): { items: Ranked[]; more: boolean };
}

// Articles ranked again with their sentence vectors: the best this many by words.
const SEMANTIC_POOL = 20;
// Articles that join the candidates by the encoder's closeness alone: the closest this many.
const MEANING_POOL = 5;

/**
 * For one of `xs` (NaN left out), the closest other article's: the highest, or the second highest
 * for the highest itself. Without another article, its own (a gap of 0: standing out of nothing is
 * no evidence; a one-article knowledge base otherwise read every message as far ahead).
 */
function topTwo(xs: Float64Array) {
  let first = Number.NaN;
  let second = Number.NaN;
  for (const x of xs) {
    if (Number.isNaN(x)) continue;
    if (!(x <= first)) {
      second = first;
      first = x;
    } else if (!(x <= second)) second = x;
  }
  return {
    other: (x: number) => {
      const o = x === first ? second : first;
      return Number.isNaN(o) ? x : o;
    },
  };
}

/** Features for `featuresOf` to fill, with the two it does not compute. */
const blank = (semantic = 0, spelling = 0) => ({
  key: 0,
  title: 0,
  question: 0,
  passage: 0,
  similarity: 0,
  unseen: 0,
  body: 0,
  semantic,
  spelling,
  bestPassage: 0,
});

/**
 * `ids`: the articles' ids; `blending`: whether word vectors re-rank (there are vectors and
 * `semanticRank` > 0); `spelling`: the articles' titles and questions by id.
 */
export function ranker(
  ids: readonly string[],
  m: Matcher,
  semanticOf: SemanticCloseness,
  spelling: PhraseSpelling,
  blending: boolean,
  w: ScoreWeights,
  meaningOf?: ArticleMeaning,
): Ranker {
  const n = ids.length;
  const { collect, featuresOf, touchedArticles } = m;

  /** The best `limit` articles for a message, best first (ties: the earlier article). */
  const rank = (query: string, limit: number, vector?: Float32Array): Candidate[] => {
    if (n === 0 || limit <= 0) return [];
    const close = vector && meaningOf?.any ? meaningOf.closeness(vector) : null;
    const lexical = collect(query);
    if (!lexical && !close) return [];
    if (close) return rankByMeaning(query, limit, close, lexical);
    const f = blank();
    // With vectors, the best SEMANTIC_POOL by words are ranked again with `semanticRank` times
    // their sentence vectors' cosine added.
    const pool = blending ? Math.max(limit, SEMANTIC_POOL) : limit;
    const best: Array<{ a: number; s: number }> = [];
    for (const a of touchedArticles) {
      const s = featuresOf(a, f);
      if (best.length === pool && !(s > best[pool - 1]!.s || (s === best[pool - 1]!.s && a < best[pool - 1]!.a)))
        continue;
      let k = best.length === pool ? pool - 1 : best.length;
      while (k > 0 && (best[k - 1]!.s < s || (best[k - 1]!.s === s && best[k - 1]!.a > a))) {
        best[k] = best[k - 1]!;
        k--;
      }
      best[k] = { a, s };
    }
    // The sentence vectors' cosines, once: the pool's when they re-rank it, and each kept article keeps its own.
    const cos = semanticOf(
      query,
      best.map(({ a }) => a),
    );
    let kept = best.map(({ a, s }, k) => ({ a, s, cos: cos[k]! }));
    if (blending) {
      kept = kept
        .map((x) => ({ ...x, s: x.s + w.semanticRank * x.cos }))
        .sort((x, y) => y.s - x.s || x.a - y.a)
        .slice(0, limit);
    }
    // Ranked by the full evidence, reported with the calibrated confidence (see `questions`); a hit
    // never claims more confidence than the one ranked above it.
    let above = 1;
    return kept.map(({ a, cos: semantic }) => {
      const out = blank(semantic, spelling.nearest(query, ids[a]!));
      const s = Math.min(above, featuresOf(a, out, true));
      above = s;
      const { bestPassage, ...features } = out;
      return { article: a, features, score: s, bestPassage };
    });
  };

  /**
   * With the encoder's closeness: the articles that share a word with the message and the
   * MEANING_POOL closest in meaning, ranked by their words' score plus `meaningRank` times their
   * closeness above the knowledge base's mean (an article without vectors adds nothing).
   */
  const rankByMeaning = (query: string, limit: number, closeness: Closeness, lexical: boolean): Candidate[] => {
    const close = closeness.best;
    let mean = 0;
    let counted = 0;
    for (const c of close) {
      if (Number.isNaN(c)) continue;
      mean += c;
      counted++;
    }
    mean /= counted || 1;
    const f = blank();
    const candidates = new Set<number>(lexical ? touchedArticles : []);
    const byCloseness = [...close.keys()]
      .filter((a) => !Number.isNaN(close[a]!))
      .sort((x, y) => close[y]! - close[x]! || x - y);
    for (const a of byCloseness.slice(0, MEANING_POOL)) candidates.add(a);
    const lexicalScore = (a: number, out: ReturnType<typeof blank>, calibrated = false) =>
      lexical ? featuresOf(a, out, calibrated) : 0;
    const bonus = (a: number) => (Number.isNaN(close[a]!) ? 0 : w.meaningRank * (close[a]! - mean));
    const ranked = [...candidates]
      .map((a) => ({ a, s: lexicalScore(a, f) + bonus(a) }))
      .sort((x, y) => y.s - x.s || x.a - y.a)
      .slice(0, limit);
    const cos = semanticOf(
      query,
      ranked.map(({ a }) => a),
    );
    const gaps = { best: topTwo(close), key: topTwo(closeness.key), passage: topTwo(closeness.passage) };
    const crowd = meaningOf!.crowd;
    let above = 1;
    return ranked.map(({ a }, k) => {
      const out = blank(cos[k]!, spelling.nearest(query, ids[a]!));
      const s = Math.min(above, lexicalScore(a, out, true));
      above = s;
      const { bestPassage, ...features } = out;
      const c = close[a]!;
      if (Number.isNaN(c)) return { article: a, features, score: s, bestPassage };
      const key = closeness.key[a]!;
      const passage = closeness.passage[a]!;
      const meaning = {
        meaning: c,
        meaningLift: c - mean,
        meaningGap: c - gaps.best.other(c),
        ...(Number.isNaN(crowd) ? {} : { meaningCrowd: crowd }),
        meaningKeys: meaningOf!.keys(a),
        ...(Number.isNaN(key) ? {} : { meaningKey: key, meaningKeyGap: key - gaps.key.other(key) }),
        ...(Number.isNaN(passage)
          ? {}
          : { meaningPassage: passage, meaningPassageGap: passage - gaps.passage.other(passage) }),
      };
      return { article: a, features: { ...features, ...meaning }, score: s, bestPassage };
    });
  };

  const rankAll = (query: string) => {
    if (n === 0 || !collect(query)) return [];
    const f = blank();
    return touchedArticles
      .map((a) => ({ a, s: featuresOf(a, f) }))
      .sort((x, y) => y.s - x.s || x.a - y.a)
      .map(({ a, s }) => ({ articleId: ids[a]!, confidence: s }));
  };

  // A page costs one scoring pass and a bounded insertion (the list pages through hundreds of
  // matching articles 20 at a time): no sort of every match, no object per match.
  const rankPage = (query: string, limit: number, from?: { confidence: number; articleId: string } | null) => {
    const best: Array<{ articleId: string; confidence: number }> = [];
    if (n === 0 || limit <= 0 || !collect(query)) return { items: best, more: false };
    const f = blank();
    // x goes before y: higher score, then the smaller id.
    const before = (s: number, id: string, y: { confidence: number; articleId: string }) =>
      s > y.confidence || (s === y.confidence && id < y.articleId);
    let after = 0;
    for (const a of touchedArticles) {
      const s = featuresOf(a, f);
      const id = ids[a]!;
      if (from && !(s < from.confidence || (s === from.confidence && id > from.articleId))) continue;
      after++;
      if (best.length === limit && !before(s, id, best[limit - 1]!)) continue;
      let k = best.length === limit ? limit - 1 : best.length;
      while (k > 0 && before(s, id, best[k - 1]!)) {
        best[k] = best[k - 1]!;
        k--;
      }
      best[k] = { articleId: id, confidence: s };
    }
    return { items: best, more: after > limit };
  };

  return { rank, rankAll, rankPage };
}
