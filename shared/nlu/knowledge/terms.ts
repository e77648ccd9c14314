// The knowledge index's term statistics: the vocabulary (stems and lexicon phrases as term ids),
// the units (each article's title with its tags, its questions, its passages, in that order), the
// inverted index from a term to the units that have it, and the terms' idf.
import type { StoredArticle } from './passages.ts';
import type { ScoreWeights } from './scoring.ts';
import { lexiconPhraseAt } from './lexicon.ts';
import { STOP, stem, words } from './words.ts';

export const KIND_TITLE = 0;
export const KIND_QUESTION = 1;
export const KIND_PASSAGE = 2;

export interface TermIndex {
  /** Each term's text: a stem, or "p:" and a lexicon phrase. */
  readonly termText: readonly string[];
  /** term -> the units that have it, in ascending order. */
  readonly postUnit: readonly (readonly number[])[];
  readonly unitArticle: readonly number[];
  readonly unitKind: readonly number[];
  /** Distinct terms of each unit. */
  readonly unitTerms: readonly (readonly number[])[];
  /** Units of article a: firstUnit[a] .. firstUnit[a + 1] - 1, title first. */
  readonly firstUnit: readonly number[];
  readonly termIdf: Float64Array;
  /** The idf of a word the knowledge base has never seen (a one-article word's, times `unseen`). */
  readonly unseenIdf: number;
  /** Each unit's idf mass. */
  readonly unitMass: Float64Array;
  /** A word's term id, -1 for a stop word, -2 for a word the knowledge base does not have. */
  termOfWord(word: string): number;
  /** Whether the word itself (not only its stem) is in a unit, or is a stop word. */
  hasWord(word: string): boolean;
  /** A lexicon phrase's term id, -2 when no unit has it. */
  termOfPhrase(key: string): number;
}

/** An article's units, in unit order: its title with its tags, each question, each passage. */
export const unitTexts = (art: StoredArticle): Array<[kind: number, text: string]> => [
  [KIND_TITLE, [art.title, ...art.tags].join(' ')],
  ...art.questions.map((q): [number, string] => [KIND_QUESTION, q]),
  ...art.passages.map((p): [number, string] => [KIND_PASSAGE, p]),
];

/** The index of the articles' units. */
export function buildTermIndex(articles: readonly StoredArticle[], w: ScoreWeights): TermIndex {
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
    for (const [kind, text] of unitTexts(art)) addUnit(a, kind, text);
  });
  firstUnit.push(unitArticle.length);

  const idf = (d: number) => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  const termIdf = Float64Array.from(df, idf);
  return {
    termText,
    postUnit,
    unitArticle,
    unitKind,
    unitTerms,
    firstUnit,
    termIdf,
    unseenIdf: idf(1) * w.unseen,
    unitMass: Float64Array.from(unitTerms, (ts) => ts.reduce((s, t) => s + termIdf[t]!, 0)),
    termOfWord: (word) => idOfWord(word, false),
    hasWord: (word) => wordTerm.has(word) || STOP.has(word),
    termOfPhrase: (key) => phraseTerm(key, false),
  };
}
