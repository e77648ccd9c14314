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
import { stemmer } from 'stemmer';

export const MAX_ANSWER_CHARS = 600;

/** Default of `knowledge.threshold`, chosen by `npm run bench:kb` (see test/bench/kb.ts). */
export const DEFAULT_KNOWLEDGE_THRESHOLD = 0.321;

/** What the database stores per article (made by prepareArticle at write time). */
export interface StoredArticle {
  id: string;
  title: string;
  url: string | null;
  tags: string[];
  questions: string[];
  passages: string[]; // plain text, whole sentences, at most MAX_ANSWER_CHARS each
}

export interface KnowledgeHit {
  articleId: string;
  title: string;
  url: string | null;
  confidence: number; // 0..1
  answer: string; // whole sentences of the best passage, at most MAX_ANSWER_CHARS, plain text
  features: Features; // what the confidence was made of (for the answer policy's calibration)
}

export interface KnowledgeIndexOptions {
  /** Tuning, measured by the benchmark; the defaults are what it chose. */
  weights?: Partial<ScoreWeights>;
}

export interface ScoreWeights {
  title: number; // share of the message covered by the title (and tags) or by one question, the better
  key: number; // share covered by the title and the questions together
  passage: number; // best share covered by one passage read with the title
  complete: number; // added as that share goes from COMPLETE to 1: a passage alone can then answer
  similarity: number; // how closely the message and the title (or a question) say the same thing
  prefix: number; // match strength of a vocabulary word that extends a message word ("doc" -> "document")
  variant: number; // match strength of a vocabulary word whose stem differs only in its last letters ("privacy" -> "private")
  fuzzy: number; // match strength of a one-typo neighbour
  synonym: number; // match strength of a learned synonym
  localSynonym: number; // the same, for a pair one article shows, in that article only
  synonymSpan: number; // statements that differ by at most this many words on each side pair those words
  synonymArticles: number; // a pair is kept when this many articles show it
  prior: number; // unseen words added to every message when taking shares of it
  unseen: number; // weight of a word the knowledge base has never seen, times the idf of a one-article word
  questions: number; // in the confidence (not the ranking), what a question's match counts for beside the title's
}

export const defaultScoreWeights: ScoreWeights = {
  title: 0.06,
  key: 0.31,
  passage: 0.23,
  complete: 0.4,
  similarity: 0.4,
  prefix: 0.6,
  variant: 0.7,
  fuzzy: 0.8,
  synonym: 0.7,
  localSynonym: 0.3,
  synonymSpan: 3,
  synonymArticles: 2,
  prior: 1,
  unseen: 1.2,
  questions: 0.6,
};

export interface KnowledgeIndex {
  readonly size: number;
  /** Best first, at most `limit` (default 3, at most 10) hits; empty when nothing matches at all. */
  search(query: string, options?: { limit?: number }): KnowledgeHit[];
  /** Every article that matches the query at all, best first, with its ranking score (questions in full): for ordering a whole list. */
  rankAll(query: string): Array<{ articleId: string; confidence: number }>;
  /** The features behind the ranking, best first: for tuning and for telling why an article matched. */
  explain(query: string, limit?: number): Array<{ articleId: string; features: Features; score: number }>;
}

/** Shares of the message's idf mass (0..1) and one similarity (0..1) of one article. */
export interface Features {
  key: number; // title and all questions together
  title: number;
  question: number;
  passage: number;
  similarity: number;
  unseen: number; // share of the message in words the knowledge base never uses (not a score feature)
}

interface Candidate {
  article: number;
  features: Features;
  score: number;
  bestPassage: number;
}

// Above this share, one passage (read with its title) says nearly all the message asks.
const COMPLETE = 0.5;

export function score(f: Features, w: ScoreWeights): number {
  const s =
    w.title * Math.max(f.title, f.question) +
    w.key * f.key +
    w.passage * f.passage +
    w.complete * Math.max(0, f.passage - COMPLETE) / (1 - COMPLETE) +
    w.similarity * f.similarity;
  return Math.min(1, Math.max(0, s));
}

// Function words and the filler of customer messages: they say nothing about which article answers.
const STOP = new Set(
  (
    'a about above after again against all also am an and any anyone anything are as at be been being below between both but by ' +
    'can cannot could did do does doing done down during each either else even ever every few for from further get gets getting got ' +
    'had has have having he hello her here hers herself hi him himself his how however i if in into is it its itself just let lets ' +
    'like me might mine more most much must my myself need needs no nor not now of off on once one only or other others otherwise our ' +
    'ours out over own please possible possibly really same she should so some somehow something still such than thank thanks that ' +
    'the their theirs them themselves then there these they thing things this those through thus to too under until up us very want ' +
    'wanted wants was way ways we were what whatever when whenever where whether which while who whom whose why will with within ' +
    'without would yes yet you your yours yourself yourselves ' +
    // pieces of contractions once the apostrophe is gone
    'd ll m re s t ve don doesn didn isn aren wasn weren haven hasn hadn won wouldn shouldn couldn can cant dont doesnt didnt isnt ' +
    'im ive id youre'
  ).split(' '),
);

const MAX_QUERY_CHARS = 2_000;
const MAX_QUERY_TERMS = 32;
const MAX_WORD = 40;

function keep(w: string, out: string[]) {
  if (w.length <= MAX_WORD && (w.length > 1 || (w >= '0' && w <= '9'))) out.push(w);
}

/** Lower-cased runs of letters and digits, accents stripped; a one-letter prefix joined by a hyphen stays on its word ("e-mail" -> "email"). */
function words(text: string): string[] {
  const s = text.toLowerCase();
  const out: string[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included
  if (/[^\x00-\x7f]/.test(s)) {
    const plain = s.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/(?<![\p{L}\p{N}])(\p{L})-(?=\p{L})/gu, '$1');
    for (const m of plain.matchAll(/[\p{L}\p{N}]+/gu)) keep(m[0], out);
    return out;
  }
  // Plain ASCII, nearly all text: a scan is several times faster than a global regex here.
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (alnum && start < 0) start = i;
    else if (!alnum && start >= 0) {
      // "e-mail", "x-ray": a one-letter prefix joined by a hyphen is part of the word.
      if (i - start === 1 && c === 45 && s.charCodeAt(i + 1) >= 97 && s.charCodeAt(i + 1) <= 122) continue;
      keep(s.slice(start, i).replace('-', ''), out);
      start = -1;
    }
  }
  return out;
}

// One stem per distinct word; bounded so that hostile traffic cannot grow it without end.
const stems = new Map<string, string>();
function stem(w: string): string {
  let s = stems.get(w);
  if (s === undefined) {
    if (stems.size > 50_000) stems.clear();
    s = stemmer(w);
    stems.set(w, s);
  }
  return s;
}

const KIND_TITLE = 0;
const KIND_QUESTION = 1;
const KIND_PASSAGE = 2;

interface QueryTerm {
  weight: number;
  term: number; // the message word's own term, -1 when the knowledge base does not have it
  alts: Array<[term: number, strength: number]>;
}

const clampLimit = (limit: number | undefined, fallback: number) =>
  limit === undefined || !Number.isFinite(limit) ? fallback : Math.max(0, Math.min(10, Math.floor(limit)));

/** Edit distance of a and b when it is at most 1 (adjacent swaps count 1), else 2. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (i >= a.length) return true;
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.slice(i + 1) === short.slice(i);
}

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
  const unitKind: number[] = [];
  const unitTerms: number[][] = []; // distinct terms of each unit, for its idf mass
  const firstUnit: number[] = []; // units of article a: firstUnit[a] .. firstUnit[a + 1] - 1, title first

  // A word's term id, -1 for a stop word, -2 for a word the knowledge base does not have. Only
  // building adds words: messages must not grow the index.
  const idOfWord = (word: string, create: boolean): number => {
    let id = wordTerm.get(word);
    if (id !== undefined) return id;
    if (STOP.has(word)) return -1;
    const st = stem(word);
    id = termOf.get(st);
    if (!create) return id ?? -2;
    if (id === undefined) {
      id = termText.length;
      termOf.set(st, id);
      termText.push(st);
      df.push(0);
      postUnit.push([]);
      lastArticle.push(-1);
    }
    wordTerm.set(word, id);
    return id;
  };

  // seenIn[term] = the last unit the term was seen in: distinct terms without a Set per unit.
  let seenIn = new Int32Array(1024).fill(-1);
  const addUnit = (a: number, kind: number, text: string) => {
    const u = unitArticle.length;
    const distinct: number[] = [];
    for (const word of words(text)) {
      const id = idOfWord(word, true);
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
  const sorted = termText.map((_, i) => i).sort((x, y) => (termText[x]! < termText[y]! ? -1 : 1));
  const byLength = new Map<number, number[]>();
  termText.forEach((t, i) => {
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

  const analyse = (query: string): QueryTerm[] => {
    const ws = words(query.slice(0, MAX_QUERY_CHARS));
    const seen = new Set<string>();
    const out: QueryTerm[] = [];
    const push = (key: string, weight: number, alts: Array<[number, number]>, term = -1) => {
      if (seen.has(key) || out.length >= MAX_QUERY_TERMS) return;
      seen.add(key);
      out.push({ weight, term, alts });
    };
    for (let i = 0; i < ws.length; i++) {
      const word = ws[i]!;
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
    if (keyRow.length < nq) keyRow = new Float32Array(nq);
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
      titleCover += qs[i]!.weight * m;
      keyRow[i] = m;
    }
    let question = 0;
    let similarity = dice(title, titleCover);
    let passage = titleCover;
    let bestPassage = 0;
    let bestOwn = 0;
    for (let u = title + 1; u < end; u++) {
      if (!isTouched[u]) continue;
      let own = 0;
      let withTitle = 0;
      let answers = 0; // what the passage adds to its title: terms the title already has count half
      for (let i = 0; i < nq; i++) {
        const m = match[u * nq + i]!;
        const t = row(title, i);
        own += qs[i]!.weight * m;
        withTitle += qs[i]!.weight * Math.max(m, t);
        answers += qs[i]!.weight * m * (1 - t / 2);
      }
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
    for (let i = 0; i < nq; i++) key += qs[i]!.weight * keyRow[i]!;
    out.key = key / total;
    out.title = titleCover / total;
    out.question = question / total;
    out.passage = passage / total;
    out.similarity = similarity;
    out.unseen = unseenMass / total;
    out.bestPassage = bestPassage;
    return score(out, w);
  };

  /** The best `limit` articles for a message, best first (ties: the earlier article). */
  const rank = (query: string, limit: number): Candidate[] => {
    if (n === 0 || limit <= 0 || !collect(query)) return [];
    const f = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, bestPassage: 0 };
    const best: Array<{ a: number; s: number }> = [];
    for (const a of touchedArticles) {
      const s = featuresOf(a, f);
      if (best.length === limit && !(s > best[limit - 1]!.s || (s === best[limit - 1]!.s && a < best[limit - 1]!.a))) continue;
      let k = best.length === limit ? limit - 1 : best.length;
      while (k > 0 && (best[k - 1]!.s < s || (best[k - 1]!.s === s && best[k - 1]!.a > a))) {
        best[k] = best[k - 1]!;
        k--;
      }
      best[k] = { a, s };
    }
    // Ranked by the full evidence, reported with the calibrated confidence (see `questions`); a hit
    // never claims more confidence than the one ranked above it.
    let above = 1;
    return best.map(({ a }) => {
      const out = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, bestPassage: 0 };
      const s = Math.min(above, featuresOf(a, out, true));
      above = s;
      const { bestPassage, ...features } = out;
      return { article: a, features, score: s, bestPassage };
    });
  };

  const search = (query: string, opts: { limit?: number } = {}): KnowledgeHit[] =>
    rank(query, clampLimit(opts.limit, 3)).map(({ article, score, bestPassage, features }) => {
      const art = articles[article]!;
      return {
        articleId: art.id,
        title: art.title,
        url: art.url,
        confidence: Math.round(score * 1000) / 1000,
        answer: clampAnswer(art.passages[bestPassage] ?? ''),
        features,
      };
    });

  const explain = (query: string, limit = 10) =>
    rank(query, clampLimit(limit, 10)).map(({ article, features, score }) => ({ articleId: articles[article]!.id, features, score }));

  const rankAll = (query: string) => {
    if (n === 0 || !collect(query)) return [];
    const f = { key: 0, title: 0, question: 0, passage: 0, similarity: 0, unseen: 0, bestPassage: 0 };
    return touchedArticles
      .map((a) => ({ a, s: featuresOf(a, f) }))
      .sort((x, y) => y.s - x.s || x.a - y.a)
      .map(({ a, s }) => ({ articleId: articles[a]!.id, confidence: s }));
  };

  return { size: n, search, rankAll, explain };
}

/**
 * Word pairs that customers swap: two statements of one article (its title, its questions) that
 * differ by a few words pair those words up ("remove my fb account" / "delete my facebook
 * account"). A pair counts once per article. It holds across the knowledge base (`synonyms`)
 * when at least `synonymArticles` articles show it, so that one odd question teaches nothing
 * about other articles; within the article that shows it (`local`: term -> [article, term]) it
 * matches at `localSynonym`, a fraction of a synonym.
 */
function learnSynonyms(
  statements: number[][][],
  w: ScoreWeights,
): { synonyms: Map<number, Array<[number, number]>>; local: Map<number, Array<[number, number]>> } {
  const seen = new Map<string, Set<number>>();
  if (w.synonymSpan <= 0) return { synonyms: new Map(), local: new Map() };
  statements.forEach((sts, a) => {
    for (let x = 0; x < sts.length; x++) {
      for (let y = x + 1; y < sts.length; y++) {
        const sx = new Set(sts[x]);
        const sy = new Set(sts[y]);
        const dx = sts[x]!.filter((t) => !sy.has(t));
        const dy = sts[y]!.filter((t) => !sx.has(t));
        if (dx.length === 0 || dy.length === 0 || dx.length > w.synonymSpan || dy.length > w.synonymSpan) continue;
        for (const p of dx) for (const q of dy) {
          for (const key of [`${p} ${q}`, `${q} ${p}`]) {
            const arts = seen.get(key) ?? new Set<number>();
            arts.add(a);
            seen.set(key, arts);
          }
        }
      }
    }
  });
  const synonyms = new Map<number, Array<[number, number]>>();
  const local = new Map<number, Array<[number, number]>>();
  for (const [key, arts] of seen) {
    const [p, q] = key.split(' ').map(Number) as [number, number];
    if (arts.size >= w.synonymArticles) {
      const list = synonyms.get(p) ?? [];
      list.push([q, w.synonym]);
      synonyms.set(p, list);
    } else if (w.localSynonym > 0) {
      const list = local.get(p) ?? [];
      for (const a of arts) list.push([a, q]);
      local.set(p, list);
    }
  }
  return { synonyms, local };
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Whole sentences from the start of a passage, at most MAX_ANSWER_CHARS (passages made by prepareArticle already fit). */
export function clampAnswer(passage: string): string {
  if (passage.length <= MAX_ANSWER_CHARS) return passage;
  let out = '';
  for (const { segment } of sentences.segment(passage)) {
    if (out.length + segment.length > MAX_ANSWER_CHARS) break;
    out += segment;
  }
  return out.trim() || `${passage.slice(0, passage.lastIndexOf(' ', MAX_ANSWER_CHARS - 1) + 1 || MAX_ANSWER_CHARS - 1).trim()}…`;
}
