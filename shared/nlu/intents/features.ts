// Text -> sparse feature hashes. No vocabulary is shipped: features are 32-bit hashes of word
// unigrams, word bigrams and character n-grams inside word boundaries, so the code stays small
// and unseen spellings still share n-grams with the training phrases.

export interface FeatureOptions {
  wordBigrams: boolean;
  charMin: number; // character n-gram sizes, inside " word " padding; charMax 0 = none
  charMax: number;
  charWeight: number; // relative weight of the char n-gram block against the word block
  stem: boolean; // add a crude stem of each word as an extra unigram
}

export const defaultFeatureOptions: FeatureOptions = {
  wordBigrams: true,
  charMin: 4,
  charMax: 4,
  charWeight: 1,
  stem: true,
};

const CONTRACTIONS: Array<[RegExp, string]> = [
  [/\bcan'?t\b/g, 'can not'],
  [/\bwon'?t\b/g, 'will not'],
  [/\bain'?t\b/g, 'is not'],
  [/n't\b/g, ' not'],
  [/'re\b/g, ' are'],
  [/'m\b/g, ' am'],
  [/'ve\b/g, ' have'],
  [/'ll\b/g, ' will'],
  [/'d\b/g, ' would'],
  [/'s\b/g, ''],
];

/** An intent's name as words: "order_status" reads "order status". */
export const nameWords = (name: string) => name.replace(/[_-]+/g, ' ');
/** An intent's name as the phrase it is trained on: its words, less numbers ("faq_3" numbers intents; it says nothing a message could). */
export const namePhrase = (name: string) =>
  nameWords(name)
    .split(' ')
    .filter((w) => w && !/^\d+$/.test(w))
    .join(' ');

/** Lower-case, strip accents, expand contractions; numbers become one shape token. */
export function tokenize(text: string): string[] {
  let s = text.toLowerCase();
  // Plain ASCII, most phrases, skips the Unicode normalisation and property regexes.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included
  const ascii = !/[^\x00-\x7f]/.test(s);
  if (!ascii)
    s = s
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[‘’´]/g, "'");
  if (s.includes('`')) s = s.replace(/`/g, "'");
  if (s.includes("'")) for (const [re, to] of CONTRACTIONS) s = s.replace(re, to);
  const out: string[] = [];
  for (const m of s.matchAll(ascii ? /[a-z0-9]+/g : /[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (ascii && !/[0-9]/.test(w)) out.push(w);
    else out.push(/^\p{N}+$/u.test(w) ? (w.length >= 5 ? '00000' : '0') : w.replace(/\p{N}/gu, '0'));
  }
  return out;
}

// A light suffix stripper: enough to join "refunds/refunded/refunding" in few-shot data.
export function stem(w: string): string {
  if (w.length <= 4) return w;
  for (const suf of ['ations', 'ation', 'ingly', 'ings', 'ing', 'edly', 'ies', 'ied', 'ed', 'es', 'ly', 's']) {
    if (w.endsWith(suf) && w.length - suf.length >= 3) {
      const base = w.slice(0, -suf.length);
      return suf === 'ies' || suf === 'ied' ? `${base}y` : base;
    }
  }
  return w;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashStr(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

// Distinct seeds keep the feature families apart.
const SEED_WORD = hashStr(FNV_OFFSET, 'w');
const SEED_BIGRAM = hashStr(FNV_OFFSET, 'b');
const SEED_STEM = hashStr(FNV_OFFSET, 's');
const SEED_CHAR = hashStr(FNV_OFFSET, 'c');

/** Feature hashes of a text, duplicates kept (the count is the term frequency). */
export interface RawFeatures {
  word: number[];
  char: number[];
}

/** The feature hashes of a text's tokens (`tokenize`: the classifier tokenizes once for these and its sentence vector). */
export function extractRaw(toks: readonly string[], o: FeatureOptions): RawFeatures {
  const word: number[] = [];
  const char: number[] = [];
  let prev = '<s>';
  for (const t of toks) {
    word.push(hashStr(SEED_WORD, t) >>> 0);
    if (o.stem) {
      const st = stem(t);
      if (st !== t) word.push(hashStr(SEED_STEM, st) >>> 0);
    }
    if (o.wordBigrams) word.push(hashStr(hashStr(SEED_BIGRAM, prev), ` ${t}`) >>> 0);
    prev = t;
    if (o.charMax > 0) {
      const p = ` ${t} `;
      for (let i = 0; i < p.length; i++) {
        let h = SEED_CHAR;
        for (let n = 1; n <= o.charMax && i + n <= p.length; n++) {
          h = Math.imul(h ^ p.charCodeAt(i + n - 1), FNV_PRIME);
          if (n >= o.charMin) char.push((h ^ n) >>> 0);
        }
      }
    }
  }
  if (o.wordBigrams && toks.length > 0) word.push(hashStr(hashStr(SEED_BIGRAM, prev), ' </s>') >>> 0);
  return { word, char };
}

/** Sorted distinct hashes and their counts. */
export function countHashes(hashes: number[]): { keys: Uint32Array; counts: Uint16Array } {
  const sorted = Uint32Array.from(hashes).sort();
  const keys = new Uint32Array(sorted.length);
  const counts = new Uint16Array(sorted.length);
  let k = -1;
  for (let i = 0; i < sorted.length; i++) {
    if (k >= 0 && keys[k] === sorted[i]) counts[k]!++;
    else {
      keys[++k] = sorted[i]!;
      counts[k] = 1;
    }
  }
  return { keys: keys.subarray(0, k + 1), counts: counts.subarray(0, k + 1) };
}

/** Open-addressing map from a 32-bit hash to a feature index: much faster than a Map here. */
export class HashIndex {
  private keys: Uint32Array;
  private vals: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity * 2) cap <<= 1;
    this.keys = new Uint32Array(cap);
    this.vals = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
  }

  private slot(h: number): number {
    let i = (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask;
    while (this.vals[i] !== -1 && this.keys[i] !== h) i = (i + 1) & this.mask;
    return i;
  }

  get(h: number): number {
    return this.vals[this.slot(h)]!;
  }

  /** The index of h, added as the next index when absent. */
  add(h: number): number {
    const i = this.slot(h);
    if (this.vals[i] !== -1) return this.vals[i]!;
    this.keys[i] = h;
    this.vals[i] = this.size++;
    if (this.size * 2 > this.mask) this.grow();
    return this.size - 1;
  }

  private grow(): void {
    const { keys, vals } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.vals = new Int32Array(keys.length * 2).fill(-1);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      if (vals[i] === -1) continue;
      const j = this.slot(keys[i]!);
      this.keys[j] = keys[i]!;
      this.vals[j] = vals[i]!;
    }
  }
}
