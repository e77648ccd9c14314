// A message matched against the knowledge index's units, and an article's evidence for it: the
// shares of the message's information its title, its questions (together and each), its passages
// (each read with the title) and its whole body cover, and how closely the message and the title
// or a question say the same thing. These are the features that the score weighs and that the
// answer policy calibrates.
import type { StoredArticle } from './passages.ts';
import { score, type Features, type ScoreWeights } from './scoring.ts';
import type { QueryTerm } from './query.ts';
import { KIND_QUESTION, type TermIndex } from './terms.ts';

export type ArticleFeatures = Features & { bestPassage: number };

export interface Matcher {
  /** Matches a message against the units; false when nothing matches at all. */
  collect(query: string): boolean;
  /** The articles the collected message touches (a unit has one of its terms), in the order first touched. */
  readonly touchedArticles: readonly number[];
  /**
   * The features of article a for the collected message, written to `out`, and its score;
   * `out.bestPassage` is the passage that covers most. `calibrated`: questions count at
   * `w.questions` (the confidence), else in full (the ranking).
   */
  featuresOf(a: number, out: ArticleFeatures, calibrated?: boolean): number;
}

export function matcher(
  articles: readonly StoredArticle[],
  index: TermIndex,
  analyse: (query: string) => QueryTerm[],
  local: ReadonlyMap<number, Array<[number, number]>>,
  w: ScoreWeights,
): Matcher {
  const { postUnit, unitArticle, unitKind, unitMass, firstUnit, unseenIdf } = index;
  const n = articles.length;
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

  return { collect, touchedArticles, featuresOf };
}
