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
import { clampAnswer, formatFor, type StoredArticle, type TextFormat } from './knowledge-passages.ts';
import { defaultScoreWeights, score, type Features, type ScoreWeights } from './knowledge-scoring.ts';
import { LEXICON, LEXICON_PHRASES } from './knowledge-lexicon.ts';
import { learnSynonyms } from './knowledge-synonyms.ts';
import { STOP, stem, withinOneEdit, words } from './knowledge-words.ts';
import { dot, principalDirection, removeAndNormalise, sentenceVector, type WordVectors } from './vectors.ts';

export { clampAnswer, MAX_ANSWER_CHARS, type StoredArticle } from './knowledge-passages.ts';
export { DEFAULT_KNOWLEDGE_THRESHOLD, defaultScoreWeights, score, type Features, type ScoreWeights } from './knowledge-scoring.ts';

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
  vectors?: WordVectors | null;
}

export interface KnowledgeIndex {
  readonly size: number;
  /** Best first, at most `limit` (default 3, at most 10) hits; empty when nothing matches at all. */
  search(query: string, options?: { limit?: number }): KnowledgeHit[];
  /** Every article that matches the query at all, best first, with its ranking score (questions in full): for ordering a whole list. */
  rankAll(query: string): Array<{ articleId: string; confidence: number }>;
  /**
   * One page of rankAll's order (score, then id), without ranking the whole list: the `limit` best
   * that come after `after` (the last item of the previous page), and whether more follow.
   */
  rankPage(query: string, limit: number, after?: { confidence: number; articleId: string } | null):
    { items: Array<{ articleId: string; confidence: number }>; more: boolean };
  /** The features behind the ranking, best first: for tuning and for telling why an article matched. */
  explain(query: string, limit?: number): Array<{ articleId: string; features: Features; score: number }>;
}

interface Candidate {
  article: number;
  features: Features;
  score: number;
  bestPassage: number;
}

const MAX_QUERY_CHARS = 2_000;
const MAX_QUERY_TERMS = 32;
const KIND_TITLE = 0;
const KIND_QUESTION = 1;
const KIND_PASSAGE = 2;

interface QueryTerm {
  weight: number;
  term: number; // the message word's own term, -1 when the knowledge base does not have it
  alts: Array<[term: number, strength: number]>;
}

// The lexicon by its single words (and their stems) and by its phrases.
const wordGroups = new Map<string, number[]>();
const phraseGroups = new Map<string, number[]>();
LEXICON.forEach((g, k) => {
  for (const m of g.members) {
    const keys = m.length === 1 ? [m[0]!, stem(m[0]!)] : [m.join(' ')];
    const map = m.length === 1 ? wordGroups : phraseGroups;
    for (const key of new Set(keys)) map.set(key, [...(map.get(key) ?? []).filter((x) => x !== k), k]);
  }
});

// Phrases by the stem of their first word, with their words' stems.
const phrasesByFirst = new Map<string, Array<{ key: string; stems: string[] }>>();
for (const p of LEXICON_PHRASES.values()) {
  for (const words of p) {
    const stems = words.map(stem);
    phrasesByFirst.set(stems[0]!, [...(phrasesByFirst.get(stems[0]!) ?? []), { key: words.join(' '), stems }]);
  }
}

/**
 * The lexicon phrase that starts at ws[i], word for word by stems; with `gap`, a two-word phrase
 * also with one word between ("send it back").
 */
function lexiconPhraseAt(ws: string[], i: number, gap: boolean): { key: string; span: number } | null {
  for (const p of phrasesByFirst.get(stem(ws[i]!)) ?? []) {
    if (p.stems.every((ps, k) => i + k < ws.length && stem(ws[i + k]!) === ps)) return { key: p.key, span: p.stems.length };
    if (gap && p.stems.length === 2 && i + 2 < ws.length && stem(ws[i + 2]!) === p.stems[1]) return { key: p.key, span: 3 };
  }
  return null;
}

/** "didn t" -> "didnt": the apostrophe's pieces joined again, as the lexicon writes them. */
function joinContractions(ws: string[]): string[] {
  if (!ws.includes('t')) return ws;
  const out: string[] = [];
  for (const x of ws) {
    if (x === 't' && out.length > 0 && out[out.length - 1]!.endsWith('n')) out[out.length - 1] += 't';
    else out.push(x);
  }
  return out;
}

// Articles ranked again with their sentence vectors: the best this many by words.
const SEMANTIC_POOL = 20;

const clampLimit = (limit: number | undefined, fallback: number) =>
  limit === undefined || !Number.isFinite(limit) ? fallback : Math.max(0, Math.min(10, Math.floor(limit)));

export function buildKnowledgeIndex(docs: readonly StoredArticle[], options: KnowledgeIndexOptions = {}): KnowledgeIndex {
  const w: ScoreWeights = { ...defaultScoreWeights, ...options.weights };
  const articles = [...docs];
  const n = articles.length;

  // Vocabulary: a raw word maps straight to its term id, so each distinct word is stemmed once.
  const wordTerm = new Map<string, number>();
  const termOf = new Map<string, number>(); // stem -> id
  const termText: string[] = [];
  const df: number[] = [];
  const postUnit: number[][] = [];
  const lastArticle: number[] = [];

  const unitArticle: number[] = [];
  const unitVec: Array<Float32Array | null> = [];
  const unitKind: number[] = [];
  const unitTerms: number[][] = []; // distinct terms of each unit, for its idf mass
  const firstUnit: number[] = []; // units of article a: firstUnit[a] .. firstUnit[a + 1] - 1, title first

  // A word's term id, -1 for a stop word, -2 for a word the knowledge base does not have. Only
  // building adds words: messages must not grow the index.
  const newTerm = (key: string) => {
    const id = termText.length;
    termOf.set(key, id);
    termText.push(key);
    df.push(0);
    postUnit.push([]);
    lastArticle.push(-1);
    return id;
  };
  // A lexicon phrase of a unit ("gift card") is one more term of it, "p:" and the phrase.
  const phraseTerm = (key: string, create: boolean) => termOf.get(`p:${key}`) ?? (create ? newTerm(`p:${key}`) : -2);

  const idOfWord = (word: string, create: boolean): number => {
    let id = wordTerm.get(word);
    if (id !== undefined) return id;
    if (STOP.has(word)) return -1;
    const st = stem(word);
    id = termOf.get(st);
    if (!create) return id ?? -2;
    if (id === undefined) id = newTerm(st);
    wordTerm.set(word, id);
    return id;
  };

  // seenIn[term] = the last unit the term was seen in: distinct terms without a Set per unit.
  let seenIn = new Int32Array(1024).fill(-1);
  const addUnit = (a: number, kind: number, text: string) => {
    const u = unitArticle.length;
    const distinct: number[] = [];
    const ws = words(text);
    if (options.vectors) unitVec.push(sentenceVector(options.vectors, ws));
    const ids = ws.map((word) => idOfWord(word, true));
    if (w.lexicon > 0) {
      for (let i = 0; i < ws.length; i++) {
        const phrase = lexiconPhraseAt(ws, i, false);
        if (phrase) ids.push(phraseTerm(phrase.key, true));
      }
    }
    for (const id of ids) {
      if (id < 0) continue;
      if (id >= seenIn.length) {
        const grown = new Int32Array(seenIn.length * 2).fill(-1);
        grown.set(seenIn);
        seenIn = grown;
      }
      if (seenIn[id] === u) continue;
      seenIn[id] = u;
      distinct.push(id);
      postUnit[id]!.push(u);
      if (lastArticle[id] !== a) {
        lastArticle[id] = a;
        df[id]!++;
      }
    }
    unitArticle.push(a);
    unitKind.push(kind);
    unitTerms.push(distinct);
  };

  articles.forEach((art, a) => {
    firstUnit.push(unitArticle.length);
    addUnit(a, KIND_TITLE, [art.title, ...art.tags].join(' '));
    for (const q of art.questions) addUnit(a, KIND_QUESTION, q);
    for (const p of art.passages) addUnit(a, KIND_PASSAGE, p);
  });
  firstUnit.push(unitArticle.length);
  // Sentence vectors: the knowledge base's own main direction removed from every unit and message.
  const direction = options.vectors ? principalDirection(unitVec.filter((x): x is Float32Array => x !== null)) : null;
  for (const x of unitVec) if (x) removeAndNormalise(x, direction);
  // The mean unit vector: a message's mean cosine to the knowledge base's units is its dot with it.
  const centroid = options.vectors ? new Float32Array(options.vectors.dim) : null;
  if (centroid) {
    const present = unitVec.filter((x): x is Float32Array => x !== null);
    for (const x of present) for (let i = 0; i < x.length; i++) centroid[i]! += x[i]! / present.length;
  }
  // How much closer the message is to the article's closest unit than to the knowledge base's
  // units on average: sentence vectors of any two shop questions are close, so only the
  // difference tells (and a one-article knowledge base tells nothing).
  const semanticOf = (query: string, arts: number[]): number[] => {
    const q = options.vectors ? sentenceVector(options.vectors, words(query.slice(0, MAX_QUERY_CHARS))) : null;
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

  const { synonyms, local } = learnSynonyms(articles.map((_, a) => {
    const out: number[][] = [];
    for (let u = firstUnit[a]!; u < firstUnit[a + 1]! && unitKind[u] !== KIND_PASSAGE; u++) out.push(unitTerms[u]!);
    return out;
  }), w);

  const idf = (d: number) => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  const termIdf = Float64Array.from(df, idf);
  const unseenIdf = idf(1) * w.unseen;
  const unitMass = Float64Array.from(unitTerms, (ts) => ts.reduce((s, t) => s + termIdf[t]!, 0));

  // Terms by text, for prefix matches by binary search, and by length, for typo neighbours.
  const sorted = termText.map((_, i) => i).filter((i) => !termText[i]!.startsWith('p:')).sort((x, y) => (termText[x]! < termText[y]! ? -1 : 1));
  const byLength = new Map<number, number[]>();
  termText.forEach((t, i) => {
    if (t.startsWith('p:')) return;
    const list = byLength.get(t.length) ?? [];
    list.push(i);
    byLength.set(t.length, list);
  });

  const prefixAlts = (st: string, out: Array<[number, number]>) => {
    if (st.length < 3) return;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (termText[sorted[mid]!]! < st) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < sorted.length && out.length < 16; k++) {
      const t = termText[sorted[k]!]!;
      if (!t.startsWith(st)) break;
      if (t !== st) out.push([sorted[k]!, w.prefix]);
    }
  };

  // Stems that differ only in their last letters, which the stemmer leaves apart ("privaci" /
  // "privat", "criterion" / "criteria"): at least 5 letters and all but the last letter of the
  // shorter one shared. A vocabulary word that merely extends the message word is prefixAlts'.
  const variantAlts = (st: string, out: Array<[number, number]>) => {
    if (w.variant <= 0 || st.length < 6) return;
    const p = st.slice(0, Math.max(5, st.length - 2));
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (termText[sorted[mid]!]! < p) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo, found = 0; k < sorted.length && found < 8; k++) {
      const t = termText[sorted[k]!]!;
      if (!t.startsWith(p)) break;
      if (t.startsWith(st)) continue;
      let c = p.length;
      while (c < t.length && c < st.length && t[c] === st[c]) c++;
      if (c < Math.min(t.length, st.length) - 1) continue;
      out.push([sorted[k]!, w.variant]);
      found++;
    }
  };

  const fuzzyAlts = (st: string, out: Array<[number, number]>) => {
    if (st.length < 5) return;
    for (let len = st.length - 1; len <= st.length + 1; len++) {
      for (const id of byLength.get(len) ?? []) {
        if (withinOneEdit(st, termText[id]!)) out.push([id, w.fuzzy]);
        if (out.length >= 8) return;
      }
    }
  };

  // Everyday equivalents: a group's members as the knowledge base's terms (a phrase as its words).
  const lexiconAlts = (groups: readonly number[] | undefined, self: string, out: Array<[number, number]>) => {
    if (!groups || w.lexicon <= 0) return;
    for (const g of groups) {
      for (const member of LEXICON[g]!.members) {
        if (member.join(' ') === self) continue;
        const id = member.length === 1 ? idOfWord(member[0]!, false) : phraseTerm(member.join(' '), false);
        if (id >= 0 && !out.some(([t]) => t === id)) out.push([id, w.lexicon]);
      }
    }
  };

  const analyse = (query: string): QueryTerm[] => {
    const ws = w.lexicon > 0 ? joinContractions(words(query.slice(0, MAX_QUERY_CHARS))) : words(query.slice(0, MAX_QUERY_CHARS));
    const seen = new Set<string>();
    const out: QueryTerm[] = [];
    const push = (key: string, weight: number, alts: Array<[number, number]>, term = -1) => {
      if (seen.has(key) || out.length >= MAX_QUERY_TERMS) return;
      seen.add(key);
      out.push({ weight, term, alts });
    };
    for (let i = 0; i < ws.length; i++) {
      const word = ws[i]!;
      // A phrase of the lexicon ("send it back", "gift card") reads as one word.
      const phrase = w.lexicon > 0 ? lexiconPhraseAt(ws, i, true) : null;
      if (phrase) {
        // The phrase itself, its words at half strength, and its group's other members.
        const own = phraseTerm(phrase.key, false);
        const alts: Array<[number, number]> = own >= 0 ? [[own, 1]] : [];
        for (const pw of phrase.key.split(' ')) {
          const id = idOfWord(pw, false);
          if (id >= 0 && !alts.some(([t]) => t === id)) alts.push([id, 0.5]);
        }
        lexiconAlts(phraseGroups.get(phrase.key), phrase.key, alts);
        if (alts.length > 0) {
          push(`p:${phrase.key}`, Math.max(...alts.map(([t]) => termIdf[t]!)), alts);
          i += phrase.span - 1;
          continue;
        }
      }
      // "git hub" -> "github", "back up" -> "backup" when the knowledge base writes it as one word.
      const next = ws[i + 1];
      if (next !== undefined) {
        const joined = idOfWord(word + next, false);
        if (joined >= 0 && (idOfWord(word, false) < 0 || idOfWord(next, false) < 0)) {
          push(termText[joined]!, termIdf[joined]!, [[joined, 1]]);
          i++;
          continue;
        }
      }
      const id = idOfWord(word, false);
      if (id === -1) continue;
      const st = id >= 0 ? termText[id]! : stem(word);
      if (STOP.has(st)) continue;
      const alts: Array<[number, number]> = id >= 0 ? [[id, 1]] : [];
      prefixAlts(st, alts);
      variantAlts(st, alts);
      lexiconAlts(wordGroups.get(word) ?? wordGroups.get(st), word, alts);
      if (id >= 0) {
        for (const [t, strength] of synonyms.get(id) ?? []) alts.push([t, strength]);
        push(st, termIdf[id]!, alts, id);
        continue;
      }
      // An unseen word: one made of two known words ("autosave"), a typo, or really unknown.
      let split = false;
      for (let k = 3; k <= word.length - 3 && !split; k++) {
        const l = idOfWord(word.slice(0, k), false);
        const r = idOfWord(word.slice(k), false);
        if (l >= 0 && r >= 0) {
          push(termText[l]!, termIdf[l]!, [[l, 1]]);
          push(termText[r]!, termIdf[r]!, [[r, 1]]);
          split = true;
        }
      }
      if (split) continue;
      fuzzyAlts(st, alts);
      push(st, alts.length > 0 ? Math.max(...alts.map(([t]) => termIdf[t]!)) : unseenIdf, alts);
    }
    return out;
  };

  const units = unitArticle.length;

  // Scratch space of one search, reused so that a search allocates next to nothing.
  let match = new Float32Array(0); // [unit][query term] -> best match strength
  let keyRow = new Float32Array(0);
  let weight = new Float64Array(0); // qs[i].weight, unboxed
  let titleRow = new Float64Array(0); // the title's row of the article being scored
  const isTouched = new Uint8Array(units);
  const articleTouched = new Uint8Array(n);
  const touched: number[] = [];
  const touchedArticles: number[] = [];
  let qs: QueryTerm[] = [];
  let nq = 0;
  let total = 0;
  let unseenMass = 0;

  const collect = (query: string): boolean => {
    for (const u of touched) isTouched[u] = 0;
    for (const a of touchedArticles) articleTouched[a] = 0;
    touched.length = 0;
    touchedArticles.length = 0;
    qs = analyse(query);
    nq = qs.length;
    total = qs.reduce((x, q) => x + q.weight, 0);
    unseenMass = qs.reduce((x, q) => x + (q.alts.length === 0 ? q.weight : 0), 0);
    // Shares are taken of the message plus `prior` unseen words: three covered words out of three
    // are weaker evidence than ten out of ten, and a one-word message rarely earns an answer.
    if (total > 0) total += w.prior * unseenIdf;
    if (nq === 0 || total <= 0) return false;
    if (match.length < units * nq) match = new Float32Array(units * nq);
    if (keyRow.length < nq) {
      keyRow = new Float32Array(nq);
      weight = new Float64Array(nq);
      titleRow = new Float64Array(nq);
    }
    for (let i = 0; i < nq; i++) weight[i] = qs[i]!.weight;
    for (let i = 0; i < nq; i++) {
      for (const [t, s] of qs[i]!.alts) {
        for (const u of postUnit[t]!) {
          const a = unitArticle[u]!;
          if (!isTouched[u]) {
            isTouched[u] = 1;
            touched.push(u);
            match.fill(0, u * nq, u * nq + nq);
          }
          if (!articleTouched[a]) {
            articleTouched[a] = 1;
            touchedArticles.push(a);
          }
          const j = u * nq + i;
          if (match[j]! < s) match[j] = s;
        }
      }
      // A pair an article's own statements show matches in that article only (the article is
      // already touched: one of its statements has the message's word). Its units are a run of
      // unit ids, found in the (sorted) postings by binary search.
      const pairs = qs[i]!.term >= 0 ? local.get(qs[i]!.term) : undefined;
      for (const [a, t] of pairs ?? []) {
        const post = postUnit[t]!;
        let lo = 0;
        let hi = post.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (post[mid]! < firstUnit[a]!) lo = mid + 1;
          else hi = mid;
        }
        for (let k = lo; k < post.length && post[k]! < firstUnit[a + 1]!; k++) {
          const u = post[k]!;
          if (!isTouched[u]) {
            isTouched[u] = 1;
            touched.push(u);
            match.fill(0, u * nq, u * nq + nq);
          }
          const j = u * nq + i;
          if (match[j]! < w.localSynonym) match[j] = w.localSynonym;
        }
      }
    }
    return touched.length > 0;
  };

  const row = (u: number, i: number) => (isTouched[u] ? match[u * nq + i]! : 0);
  // Dice of the message and a short unit: high only when each says most of what the other says.
  const dice = (u: number, covered: number) => (unitMass[u]! > 0 ? (2 * covered) / (total + unitMass[u]!) : 0);

  /**
   * The features of article a for the collected message; `out.bestPassage` is the passage that
   * covers most. `calibrated`: questions count at `w.questions` (the confidence), else in full (the ranking).
   */
  const featuresOf = (a: number, out: Features & { bestPassage: number }, calibrated = false) => {
    const title = firstUnit[a]!;
    const end = firstUnit[a + 1]!;
    const nQuestions = articles[a]!.questions.length;
    let titleCover = 0;
    for (let i = 0; i < nq; i++) {
      const m = row(title, i);
      titleCover += weight[i]! * m;
      keyRow[i] = m;
      titleRow[i] = m;
    }
    let question = 0;
    let similarity = dice(title, titleCover);
    let passage = titleCover;
    let bestPassage = 0;
    let bestOwn = 0;
    let body = 0;
    for (let u = title + 1; u < end; u++) {
      if (!isTouched[u]) continue;
      let own = 0;
      let withTitle = 0;
      let beyond = 0; // what the unit covers that the title does not
      let answers = 0; // what the passage adds to its title: terms the title already has count half
      const base = u * nq;
      for (let i = 0; i < nq; i++) {
        const m = match[base + i]!;
        const t = titleRow[i]!;
        const wi = weight[i]!;
        own += wi * m;
        withTitle += wi * Math.max(m, t);
        answers += wi * m * (1 - t / 2);
        beyond += wi * Math.max(0, m - t);
      }
      body = Math.max(body, unitKind[u] === KIND_QUESTION && calibrated ? w.questions * beyond : beyond);
      if (unitKind[u] === KIND_QUESTION) {
        const f = calibrated ? w.questions : 1;
        for (let i = 0; i < nq; i++) keyRow[i] = Math.max(keyRow[i]!, f * match[u * nq + i]!);
        question = Math.max(question, f * own);
        similarity = Math.max(similarity, f * dice(u, own));
      } else {
        passage = Math.max(passage, withTitle);
        if (answers > bestOwn) {
          bestOwn = answers;
          bestPassage = u - title - 1 - nQuestions;
        }
      }
    }
    let key = 0;
    for (let i = 0; i < nq; i++) key += weight[i]! * keyRow[i]!;
    out.key = key / total;
    out.title = titleCover / total;
    out.question = question / total;
    out.passage = passage / total;
    out.similarity = similarity;
    out.unseen = unseenMass / total;
    out.body = body / total;
    out.bestPassage = bestPassage;
    return score(out, w);
  };

  /** The best `limit` articles for a message, best first (ties: the earlier article). */
  const rank = (query: string, limit: number): Candidate[] => {
    if (n === 0 || limit <= 0 || !collect(query)) return [];
    const f = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, body: 0, semantic: 0, bestPassage: 0 };
    // With vectors, the best SEMANTIC_POOL by words are ranked again with `semanticRank` times
    // their sentence vectors' cosine added.
    const blending = options.vectors !== null && options.vectors !== undefined && w.semanticRank > 0;
    const pool = blending ? Math.max(limit, SEMANTIC_POOL) : limit;
    let best: Array<{ a: number; s: number }> = [];
    for (const a of touchedArticles) {
      const s = featuresOf(a, f);
      if (best.length === pool && !(s > best[pool - 1]!.s || (s === best[pool - 1]!.s && a < best[pool - 1]!.a))) continue;
      let k = best.length === pool ? pool - 1 : best.length;
      while (k > 0 && (best[k - 1]!.s < s || (best[k - 1]!.s === s && best[k - 1]!.a > a))) {
        best[k] = best[k - 1]!;
        k--;
      }
      best[k] = { a, s };
    }
    if (blending) {
      const cos = semanticOf(query, best.map(({ a }) => a));
      best = best.map(({ a, s }, k) => ({ a, s: s + w.semanticRank * cos[k]! }))
        .sort((x, y) => y.s - x.s || x.a - y.a)
        .slice(0, limit);
    }
    // Ranked by the full evidence, reported with the calibrated confidence (see `questions`); a hit
    // never claims more confidence than the one ranked above it.
    let above = 1;
    const semantic = semanticOf(query, best.map(({ a }) => a));
    return best.map(({ a }, k) => {
      const out = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, body: 0, semantic: semantic[k]!, bestPassage: 0 };
      const s = Math.min(above, featuresOf(a, out, true));
      above = s;
      const { bestPassage, ...features } = out;
      return { article: a, features, score: s, bestPassage };
    });
  };

  const search = (query: string, opts: { limit?: number } = {}): KnowledgeHit[] =>
    rank(query, clampLimit(opts.limit, 3)).map(({ article, score, bestPassage, features }) => {
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

  const explain = (query: string, limit = 10) =>
    rank(query, clampLimit(limit, 10)).map(({ article, features, score }) => ({ articleId: articles[article]!.id, features, score }));

  const rankAll = (query: string) => {
    if (n === 0 || !collect(query)) return [];
    const f = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, body: 0, semantic: 0, bestPassage: 0 };
    return touchedArticles
      .map((a) => ({ a, s: featuresOf(a, f) }))
      .sort((x, y) => y.s - x.s || x.a - y.a)
      .map(({ a, s }) => ({ articleId: articles[a]!.id, confidence: s }));
  };

  // A page costs one scoring pass and a bounded insertion (the list pages through hundreds of
  // matching articles 20 at a time): no sort of every match, no object per match.
  const rankPage = (query: string, limit: number, from?: { confidence: number; articleId: string } | null) => {
    const best: Array<{ articleId: string; confidence: number }> = [];
    if (n === 0 || limit <= 0 || !collect(query)) return { items: best, more: false };
    const f = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, body: 0, semantic: 0, bestPassage: 0 };
    // x goes before y: higher score, then the smaller id.
    const before = (s: number, id: string, y: { confidence: number; articleId: string }) => s > y.confidence || (s === y.confidence && id < y.articleId);
    let after = 0;
    for (const a of touchedArticles) {
      const s = featuresOf(a, f);
      const id = articles[a]!.id;
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

  return { size: n, search, rankAll, rankPage, explain };
}

