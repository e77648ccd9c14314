import { stem, tokenize } from './features.ts';
import { cosine as dot, type TextVectors } from '../encoder/vector-math.ts';

// Groups customers' messages that ask the same thing, by the words they share: greedy clustering
// over tf-idf vectors of stemmed words, function words left out (idf over the messages themselves,
// so words many messages have weigh little). Each message joins the most similar group whose first message it resembles
// enough, or starts a group; an inverted index keeps the comparisons to groups sharing a word.

const STOP = new Set([
  'a',
  'an',
  'the',
  'i',
  'me',
  'my',
  'you',
  'your',
  'we',
  'it',
  'is',
  'are',
  'am',
  'be',
  'to',
  'of',
  'in',
  'on',
  'for',
  'and',
  'or',
  'do',
  'doe',
  'does',
  'can',
  'could',
  'would',
  'will',
  'please',
  'there',
  'this',
  'that',
  'with',
  'have',
  'has',
  'not',
  'no',
  'at',
  'so',
  'if',
  'hi',
  'hello',
  'thank',
  'thanks',
  'get',
  'want',
  'need',
]);

type Vec = Map<string, number>;

// idf with a prior of this many messages: among a handful of messages every word weighs about the
// same (a word that four of six messages share is what they share, not noise); among thousands,
// words that many messages have ("order", "account") weigh little.
const IDF_PRIOR = 50;

const words = (text: string) =>
  tokenize(text)
    .filter((w) => !STOP.has(w))
    .map(stem);

function cosine(a: Vec, b: Vec): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (big.get(t) ?? 0);
  return dot;
}

export interface Group<T> {
  members: T[];
  label: T;
}

/**
 * Sentence cosine (USE lite) from which two messages ask the same thing: "do you sell bikes" and
 * "are bicycles for sale here" are 0.69, "do you sell bikes" and "where is my order" 0.20.
 */
export const SENTENCE_MIN = 0.65;

/**
 * Groups in order of size, biggest first (ties: the group met first); each group's members keep the
 * input order. With `vectors` (sentence vectors by trimmed text) a message also joins a group whose
 * first message means the same in other words.
 */
export function groupMessages<T>(
  items: readonly T[],
  text: (t: T) => string,
  minSimilarity = 0.4,
  vectors?: TextVectors,
): Group<T>[] {
  const sentence = items.map((i) => vectors?.get(text(i).trim()));
  // Customers repeat themselves ("agent", "hi"): each distinct text is read and weighed once.
  const distinct = new Map<string, number>();
  const toks: string[][] = [];
  const of = items.map((i) => {
    const t = text(i);
    let k = distinct.get(t);
    if (k === undefined) {
      k = toks.length;
      distinct.set(t, k);
      toks.push(words(t));
    }
    return k;
  });
  const sets = toks.map((ws) => new Set(ws));
  const df = new Map<string, number>();
  for (const k of of) for (const w of sets[k]!) df.set(w, (df.get(w) ?? 0) + 1);
  const n = items.length;
  const distinctVecs = toks.map((ws) => {
    const v: Vec = new Map();
    for (const w of ws) v.set(w, (v.get(w) ?? 0) + 1);
    let norm = 0;
    for (const [w, c] of v) {
      const x = (1 + Math.log(c)) * Math.log((n + IDF_PRIOR) / (df.get(w)! + IDF_PRIOR / 10));
      v.set(w, x);
      norm += x * x;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [w, x] of v) v.set(w, x / norm);
    return v;
  });
  const vecs = of.map((k) => distinctVecs[k]!);
  const groups: Array<{ seed: Vec; sentence: Float32Array | undefined; members: number[] }> = [];
  const postings = new Map<string, number[]>();
  vecs.forEach((v, i) => {
    let best = -1;
    let bestSim = minSimilarity;
    const seen = new Set<number>();
    for (const w of v.keys()) {
      for (const g of postings.get(w) ?? []) {
        if (seen.has(g)) continue;
        seen.add(g);
        const s = cosine(v, groups[g]!.seed);
        if (s >= bestSim) {
          bestSim = s;
          best = g;
        }
      }
    }
    const mine = sentence[i];
    if (mine) {
      groups.forEach((g, k) => {
        if (!g.sentence) return;
        const s = dot(mine, g.sentence);
        if (s >= SENTENCE_MIN && s >= bestSim) {
          bestSim = s;
          best = k;
        }
      });
    }
    if (best >= 0) {
      groups[best]!.members.push(i);
      return;
    }
    groups.push({ seed: v, sentence: mine, members: [i] });
    for (const w of v.keys()) {
      const p = postings.get(w) ?? [];
      p.push(groups.length - 1);
      postings.set(w, p);
    }
  });
  return groups
    .map((g, order) => ({ g, order }))
    .sort((a, b) => b.g.members.length - a.g.members.length || a.order - b.order)
    .map(({ g }) => {
      // The label: the member nearest the group's centre (among its first 50).
      const some = g.members.slice(0, 50);
      const centre: Vec = new Map();
      for (const m of some) for (const [w, x] of vecs[m]!) centre.set(w, (centre.get(w) ?? 0) + x);
      let label = some[0]!;
      let bestSim = -1;
      for (const m of some) {
        const s = cosine(vecs[m]!, centre);
        if (s > bestSim) {
          bestSim = s;
          label = m;
        }
      }
      return { members: g.members.map((m) => items[m]!), label: items[label]! };
    });
}
