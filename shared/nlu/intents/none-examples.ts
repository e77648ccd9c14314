import { stem, tokenize } from './features.ts';
import { cosine as unitCosine, type TextVectors } from '../encoder/vector-math.ts';
import { intentMeaning, type IntentMeaning } from './phrase-meaning.ts';

// Messages the team said nothing should answer (`none` examples). A message falls back when it is
// nearer to one of them than to anything of the answer the assistant would give: the winning
// intent's training phrases, or the answering article's title, questions and passage. Nearness is
// the cosine of tf-idf vectors of stemmed words and word pairs (idf over the none examples and every
// training phrase), so a message only vetoes what it resembles: an unrelated in-scope message is
// far from every none example and keeps its answer.
// With the sentence encoder's vectors (of the message, the none examples and the intent's phrases),
// a message nearer in meaning to a none example than to the intent's closest phrase falls back too:
// "what is the capital of peru" is near "what's the population of chile" in meaning, in no word.

export interface NoneOptions {
  /** The least similarity to a none example that can veto an answer. */
  minSimilarity: number;
  /** How much nearer to the none example than to the answer the message must be. */
  margin: number;
  /** The same two in meaning (cosines of the encoder's unit vectors). */
  minMeaning: number;
  meaningMargin: number;
  /** In meaning, only an intent answered with less confidence than this can be vetoed. */
  meaningBelow: number;
}
export const defaultNoneOptions: NoneOptions = {
  minSimilarity: 0.3,
  margin: 0.05,
  minMeaning: 0.45,
  meaningMargin: -0.08,
  meaningBelow: 0.9,
};

type Vec = Map<string, number>;

function terms(text: string): string[] {
  const words = tokenize(text).map(stem);
  const out = [...words];
  for (let i = 1; i < words.length; i++) out.push(`${words[i - 1]} ${words[i]}`);
  return out;
}

function cosine(a: Vec, b: Vec): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (big.get(t) ?? 0);
  return dot;
}

export interface NoneIndex {
  /** Number of none examples. */
  size: number;
  /**
   * True when `text` is nearer to a none example than to the answer (`intent`'s phrases, or the
   * article's `texts`); `confidence`: the intent's (absent: sure enough that meaning alone cannot veto it).
   */
  vetoes(
    text: string,
    answer: { intent: string } | { texts: string[] },
    messageVector?: Float32Array,
    confidence?: number,
  ): boolean;
  /** The similarity of `text` to its nearest none example (0 with none). */
  nearest(text: string, messageVector?: Float32Array): number;
}

export function buildNoneIndex(
  none: readonly string[],
  intents: ReadonlyArray<{ name: string; trainingPhrases: readonly string[] }>,
  options: Partial<NoneOptions> = {},
  vectors?: TextVectors,
  /** The intents' closeness in meaning, when the caller has it already (the assistant's model does). */
  meaning: IntentMeaning = intentMeaning(intents, vectors),
): NoneIndex {
  const o = { ...defaultNoneOptions, ...options };
  if (none.length === 0) return { size: 0, vetoes: () => false, nearest: () => 0 };
  const docs = [...none, ...intents.flatMap((i) => i.trainingPhrases)];
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(terms(d))) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log((docs.length + 1) / ((df.get(t) ?? 0) + 1)) + 1;
  const vec = (text: string): Vec => {
    const v: Vec = new Map();
    for (const t of terms(text)) v.set(t, (v.get(t) ?? 0) + 1);
    let norm = 0;
    for (const [t, n] of v) {
      const w = (1 + Math.log(n)) * idf(t);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of v) v.set(t, w / norm);
    return v;
  };
  // An inverted index over the none examples: a message is compared only with those it shares a term with.
  const noneVecs = none.map(vec);
  const postings = new Map<string, Array<[number, number]>>();
  noneVecs.forEach((v, i) => {
    for (const [t, w] of v) {
      const p = postings.get(t) ?? [];
      p.push([i, w]);
      postings.set(t, p);
    }
  });
  const byIntent = new Map(intents.map((i) => [i.name, i.trainingPhrases]));
  const phraseVecs = new Map<string, Vec[]>();
  const phrasesOf = (name: string) => {
    let v = phraseVecs.get(name);
    if (!v) {
      v = (byIntent.get(name) ?? []).map(vec);
      phraseVecs.set(name, v);
    }
    return v;
  };
  const nearestTo = (v: Vec) => {
    const dots = new Map<number, number>();
    for (const [t, w] of v) for (const [i, x] of postings.get(t) ?? []) dots.set(i, (dots.get(i) ?? 0) + w * x);
    let best = 0;
    for (const d of dots.values()) if (d > best) best = d;
    return best;
  };
  // In meaning: the none examples' vectors (those that have one) against the intent's closest phrase.
  const noneMeaning = vectors
    ? none.map((t) => vectors.get(t.trim())).filter((x): x is Float32Array => x !== undefined)
    : [];
  const vetoesInMeaning = (m: Float32Array | undefined, intent: string) => {
    if (!m || noneMeaning.length === 0) return false;
    const toOwn = meaning.closeness(m, intent);
    if (toOwn === null) return false;
    const toNone = noneMeaning.reduce((best, u) => Math.max(best, unitCosine(m, u)), -1);
    return toNone >= o.minMeaning && toNone >= toOwn + o.meaningMargin;
  };
  return {
    size: none.length,
    nearest: (text) => nearestTo(vec(text)),
    vetoes(text, answer, messageVector, confidence = 1) {
      if ('intent' in answer && confidence < o.meaningBelow && vetoesInMeaning(messageVector, answer.intent))
        return true;
      const v = vec(text);
      const toNone = nearestTo(v);
      if (toNone < o.minSimilarity) return false;
      const own = 'intent' in answer ? phrasesOf(answer.intent) : answer.texts.map(vec);
      let toAnswer = 0;
      for (const p of own) toAnswer = Math.max(toAnswer, cosine(v, p));
      return toNone >= toAnswer + o.margin;
    },
  };
}
