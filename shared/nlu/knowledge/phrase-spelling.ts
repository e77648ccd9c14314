// How nearly a message is spelled like one of a candidate's phrases (an intent's training phrases,
// an article's title and questions): the Dice coefficient of their character trigrams, the best
// over the candidate's phrases. Informal spelling and typos ("byee", "thx", "get me an agnet")
// share most trigrams with a phrase where they share no word, so this tells the answer policy that
// the message has been seen before, in other letters (measured in test/bench/answers.ts).

export interface PhraseSpelling {
  /** The best Dice coefficient (0..1) of the message's character trigrams and one of the candidate's phrases'. */
  nearest(text: string, candidate: string): number;
}

// A trigram as one number: three UTF-16 code units fit in 48 bits, exactly.
function trigrams(text: string): Set<number> {
  const t = ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
  const keys = new Set<number>();
  for (let i = 0; i + 3 <= t.length; i++)
    keys.add(t.charCodeAt(i) * 2 ** 32 + t.charCodeAt(i + 1) * 2 ** 16 + t.charCodeAt(i + 2));
  return keys;
}

// The message's trigrams, kept for the next question: the intents' and the articles' spelling are
// asked about the same message in turn, three candidates each.
let last = { text: '', grams: new Set<number>() };
function messageTrigrams(text: string): Set<number> {
  if (last.text !== text) last = { text, grams: trigrams(text) };
  return last.grams;
}

/** One candidate's phrases: each trigram's phrases, and each phrase's number of trigrams. */
interface Grams {
  postings: Map<number, number[]>;
  sizes: Int32Array;
}

function gramsOf(phrases: readonly string[]): Grams {
  const postings = new Map<number, number[]>();
  const sizes = new Int32Array(phrases.length);
  phrases.forEach((p, k) => {
    const keys = trigrams(p);
    sizes[k] = keys.size;
    for (const g of keys) {
      const list = postings.get(g);
      if (list) list.push(k);
      else postings.set(g, [k]);
    }
  });
  return { postings, sizes };
}

/** `phrases`: each candidate's, by id; read on the candidate's first question (most never come near the top). */
export function phraseSpelling(phrases: ReadonlyMap<string, readonly string[]>): PhraseSpelling {
  const read = new Map<string, Grams>();
  let shared = new Int32Array(0);
  return {
    nearest(text, candidate) {
      let g = read.get(candidate);
      if (!g) {
        g = gramsOf(phrases.get(candidate) ?? []);
        read.set(candidate, g);
      }
      const q = messageTrigrams(text);
      const n = g.sizes.length;
      if (shared.length < n) shared = new Int32Array(n);
      shared.fill(0, 0, n);
      // Trigrams shared with each phrase, counted through the postings (not phrase by phrase).
      for (const key of q) for (const k of g.postings.get(key) ?? []) shared[k]!++;
      let best = 0;
      for (let k = 0; k < n; k++) if (shared[k]! > 0) best = Math.max(best, (2 * shared[k]!) / (q.size + g.sizes[k]!));
      return best;
    },
  };
}
