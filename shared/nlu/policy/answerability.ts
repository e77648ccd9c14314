// Whether a candidate answers what a message asks or only shares its topic: the message's content
// words that the candidate's own text does not hold, neither as written (by stem) nor close in
// meaning (the word vectors' cosine to the candidate's closest word). "is parking free" against the
// starter `opening_hours` leaves "parking" uncovered: the hours intent was written for hours only.
import type { WordVectors } from '../encoder/glove.ts';
import { STOP, stem, words } from '../knowledge/words.ts';

export interface Uncovered {
  word: string;
  /** Frequency rank in the word vectors (0 = most frequent); the vocabulary's size for a word it lacks. */
  rank: number;
  /** The candidate's word closest in meaning, and the cosine (0 when the word has no vector). */
  closest: string;
  closeness: number;
}

// Greetings and address that customers put around any question ("hey, what time do you shut today").
const FILLER = new Set(['hey', 'hiya', 'hii', 'heya', 'guys', 'folks', 'mate', 'pls', 'plz', 'okay', 'lol', 'cheers']);

/** A candidate's words, read once: their stems and their word vectors. */
export interface CoveredText {
  stems: ReadonlySet<string>;
  rows: ReadonlyArray<{ word: string; x: Int8Array; norm: number }>;
}

const rowOf = (v: WordVectors, row: number) => v.data.subarray(row * v.dim, (row + 1) * v.dim);
function dotInt(a: Int8Array, b: Int8Array) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function coveredText(text: string, vectors: WordVectors): CoveredText {
  const held = [...new Set(words(text).filter((w) => !STOP.has(w)))];
  return {
    stems: new Set(held.map(stem)),
    rows: held.flatMap((word) => {
      const r = vectors.index.get(word);
      if (r === undefined) return [];
      const x = rowOf(vectors, r);
      return [{ word, x, norm: Math.sqrt(dotInt(x, x)) }];
    }),
  };
}

/** The content words of `message` (not stop words, not numbers) that `covered` does not hold by stem. */
export function uncoveredWords(message: string, covered: CoveredText, vectors: WordVectors): Uncovered[] {
  const out: Uncovered[] = [];
  // Codes and numbers ("SC-10482", "order 31877") are values the candidate asks for, not subjects.
  const text = message.replace(/\b[a-z]{0,4}[-#]?\d[\w-]*/gi, ' ');
  for (const w of new Set(words(text))) {
    if (STOP.has(w) || FILLER.has(w) || w.length < 3 || covered.stems.has(stem(w))) continue;
    const r = vectors.index.get(w);
    let closest = '';
    let closeness = 0;
    if (r !== undefined) {
      const x = rowOf(vectors, r);
      const nx = Math.sqrt(dotInt(x, x));
      for (const o of covered.rows) {
        const c = dotInt(x, o.x) / (nx * o.norm || 1);
        if (c > closeness) {
          closeness = c;
          closest = o.word;
        }
      }
    }
    out.push({ word: w, rank: r ?? vectors.index.size, closest, closeness });
  }
  return out;
}

// A word among the most frequent thousand ("come", "days", "put") says little about what is asked;
// a rarer one that nothing in the candidate is close to ("parking", "passport", "birthday") is a
// subject the candidate was not written for. Chosen on the tuning help desks with starter content
// (docs/decisions/008-answer-policy-coverage.md); a word the vectors lack (a typo, an order code,
// "pls") is not counted either way.
export const TOPIC_RANK = 1000;
export const CLOSE = 0.5;

/** The first word of `message` that names a subject `covered` does not speak of, or null. */
export function offTopicWord(message: string, covered: CoveredText, vectors: WordVectors): string | null {
  const size = vectors.index.size;
  const off = uncoveredWords(message, covered, vectors).find(
    (u) => u.rank >= TOPIC_RANK && u.rank < size && u.closeness < CLOSE,
  );
  return off?.word ?? null;
}
