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

export const defaultFeatureOptions: FeatureOptions = { wordBigrams: true, charMin: 3, charMax: 5, charWeight: 1, stem: true };

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

/** Lower-case, strip accents, expand contractions; numbers become one shape token. */
export function tokenize(text: string): string[] {
  let s = text.toLowerCase().normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[‘’`´]/g, "'");
  if (s.includes("'")) for (const [re, to] of CONTRACTIONS) s = s.replace(re, to);
  const out: string[] = [];
  for (const m of s.matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    out.push(/^\p{N}+$/u.test(w) ? (w.length >= 5 ? '00000' : '0') : w.replace(/\p{N}/gu, '0'));
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

export interface RawFeatures {
  word: Map<number, number>; // hash -> count
  char: Map<number, number>;
}

function bump(m: Map<number, number>, h: number): void {
  m.set(h, (m.get(h) ?? 0) + 1);
}

export function extractRaw(text: string, o: FeatureOptions): RawFeatures {
  const toks = tokenize(text);
  const word = new Map<number, number>();
  const char = new Map<number, number>();
  let prev = '<s>';
  for (const t of toks) {
    bump(word, hashStr(SEED_WORD, t) >>> 0);
    if (o.stem) {
      const st = stem(t);
      if (st !== t) bump(word, hashStr(SEED_STEM, st) >>> 0);
    }
    if (o.wordBigrams) bump(word, hashStr(hashStr(SEED_BIGRAM, prev), ` ${t}`) >>> 0);
    prev = t;
    if (o.charMax > 0) {
      const p = ` ${t} `;
      for (let i = 0; i < p.length; i++) {
        let h = SEED_CHAR;
        for (let n = 1; n <= o.charMax && i + n <= p.length; n++) {
          h = Math.imul(h ^ p.charCodeAt(i + n - 1), FNV_PRIME);
          if (n >= o.charMin) bump(char, (h ^ n) >>> 0);
        }
      }
    }
  }
  if (o.wordBigrams && toks.length > 0) bump(word, hashStr(hashStr(SEED_BIGRAM, prev), ' </s>') >>> 0);
  return { word, char };
}
