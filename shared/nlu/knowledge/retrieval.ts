// Knowledge-base retrieval on the chat path: an index of a tenant's articles (title, questions,
// passages) that finds the passage answering a message, with a confidence that means "this
// passage answers it", so that one threshold refuses what the articles do not cover.
//
// The confidence is built from shares of the message's information (idf mass of its terms):
// how much of it one passage (read with its article's title) or one of the article's questions
// covers, how much the whole article covers, and how closely the message and the title or a
// question say the same thing. Words the knowledge base has never seen carry the most weight,
// so a message about something else stays low even when it shares the product's name.
//
// Articles are ranked on all their evidence, but the confidence counts a question's match at a
// fraction (`questions`) of the title's: an article with several questions has several chances to
// match an unrelated message, and without the discount the same threshold answered twice as many
// messages whose article is missing when articles had questions as when they had none.
//
// Words match beyond their stems: a vocabulary word that extends the message word ("doc" ->
// "document"), a stem that differs only in its last letters ("privacy" / "private"), a one-typo
// neighbour, a split compound, and word pairs the tenant's own titles and questions swap: for
// every article when two articles show the pair, for the one article that shows it otherwise.
//
// The parts: knowledge-terms.ts (vocabulary, inverted index, idf), knowledge-query.ts (a message's
// terms and what each matches), knowledge-evidence.ts (the message against the units; an
// article's features), knowledge-semantic.ts (sentence vectors), knowledge-rank.ts (rankings),
// knowledge-scoring.ts (the score of the features), knowledge-synonyms.ts, knowledge-lexicon.ts,
// knowledge-words.ts, knowledge-passages.ts (the stored article and the answer cut from it).
import { matcher } from './evidence.ts';
import { clampAnswer, formatFor, type StoredArticle, type TextFormat } from './passages.ts';
import { queryReader } from './query.ts';
import { ranker } from './rank.ts';
import { defaultScoreWeights, type Features, type ScoreWeights } from './scoring.ts';
import { semanticCloseness } from './semantic.ts';
import { articleMeaning } from './article-meaning.ts';
import { learnSynonyms } from './synonyms.ts';
import { buildTermIndex, KIND_PASSAGE } from './terms.ts';
import { phraseSpelling } from './phrase-spelling.ts';
import type { WordVectors } from '../encoder/glove.ts';
import type { TextVectors } from '../encoder/vector-math.ts';

export { clampAnswer, MAX_ANSWER_CHARS, type StoredArticle } from './passages.ts';
export {
  DEFAULT_KNOWLEDGE_THRESHOLD,
  defaultScoreWeights,
  score,
  type Features,
  type ScoreWeights,
} from './scoring.ts';

export interface KnowledgeHit {
  articleId: string;
  title: string;
  url: string | null;
  confidence: number; // 0..1
  answer: string; // whole sentences of the best passage, at most MAX_ANSWER_CHARS, plain text
  /** The article's bold, emphasis, links and list items that the answer contains (for clients that format it). */
  format?: TextFormat;
  features: Features; // what the confidence was made of (for the answer policy's calibration)
}

export interface KnowledgeIndexOptions {
  /** Tuning, measured by the benchmark; the defaults are what it chose. */
  weights?: Partial<ScoreWeights>;
  /** Word vectors: each hit then tells how close the message's sentence vector is to the article's (`features.semantic`). */
  wordVectors?: WordVectors | null;
  /**
   * The sentence encoder's vectors of the articles' titles, questions and passages (see
   * shared/nlu/policy/to-embed.ts); an article without them is matched by its words alone.
   */
  vectors?: TextVectors;
}

export interface KnowledgeIndex {
  readonly size: number;
  /** Best first, at most `limit` (default 3, at most 10) hits; empty when nothing matches at all. */
  /** `vector`: the message's sentence vector (absent: words only). */
  search(query: string, options?: { limit?: number; vector?: Float32Array }): KnowledgeHit[];
  /** Every article that matches the query at all, best first, with its ranking score (questions in full): for ordering a whole list. */
  rankAll(query: string): Array<{ articleId: string; confidence: number }>;
  /**
   * One page of rankAll's order (score, then id), without ranking the whole list: the `limit` best
   * that come after `after` (the last item of the previous page), and whether more follow.
   */
  rankPage(
    query: string,
    limit: number,
    after?: { confidence: number; articleId: string } | null,
  ): { items: Array<{ articleId: string; confidence: number }>; more: boolean };
  /** The features behind the ranking, best first: for tuning and for telling why an article matched. */
  explain(
    query: string,
    limit?: number,
    vector?: Float32Array,
  ): Array<{ articleId: string; features: Features; score: number }>;
  /** Whether a word (lower case) is, as it is written, one of the articles' words, or a stop word. */
  knows(word: string): boolean;
}

const clampLimit = (limit: number | undefined, fallback: number) =>
  limit === undefined || !Number.isFinite(limit) ? fallback : Math.max(0, Math.min(10, Math.floor(limit)));

export function buildKnowledgeIndex(
  docs: readonly StoredArticle[],
  options: KnowledgeIndexOptions = {},
): KnowledgeIndex {
  const w: ScoreWeights = { ...defaultScoreWeights, ...options.weights };
  const articles = [...docs];
  const vectors = options.wordVectors;

  // Every unit's terms, and with word vectors the units' sentence vectors.
  const index = buildTermIndex(articles, w);
  const semanticOf = semanticCloseness(vectors, articles);

  // Word pairs of each article's title and questions (not its passages).
  const { firstUnit, unitKind, unitTerms } = index;
  const { synonyms, local } = learnSynonyms(
    articles.map((_, a) => {
      const out: Array<readonly number[]> = [];
      for (let u = firstUnit[a]!; u < firstUnit[a + 1]! && unitKind[u] !== KIND_PASSAGE; u++) out.push(unitTerms[u]!);
      return out;
    }),
    w,
  );

  const match = matcher(articles, index, queryReader(index, synonyms, w), local, w);
  const blending = vectors !== null && vectors !== undefined && w.semanticRank > 0;
  // How nearly a message is spelled like an article's title or one of its questions (answer-policy.ts).
  const spelling = phraseSpelling(new Map(articles.map((art) => [art.id, [art.title, ...art.questions]])));
  const { rank, rankAll, rankPage } = ranker(
    articles.map((art) => art.id),
    match,
    semanticOf,
    spelling,
    blending,
    w,
    articleMeaning(articles, options.vectors),
  );

  const search = (query: string, opts: { limit?: number; vector?: Float32Array } = {}): KnowledgeHit[] =>
    rank(query, clampLimit(opts.limit, 3), opts.vector).map(({ article, score, bestPassage, features }) => {
      const art = articles[article]!;
      const answer = clampAnswer(art.passages[bestPassage] ?? '');
      const format = formatFor(answer, art.format);
      return {
        articleId: art.id,
        title: art.title,
        url: art.url,
        confidence: Math.round(score * 1000) / 1000,
        answer,
        ...(format ? { format } : {}),
        features,
      };
    });

  const explain = (query: string, limit = 10, vector?: Float32Array) =>
    rank(query, clampLimit(limit, 10), vector).map(({ article, features, score }) => ({
      articleId: articles[article]!.id,
      features,
      score,
    }));

  return { size: articles.length, search, rankAll, rankPage, explain, knows: index.hasWord };
}
