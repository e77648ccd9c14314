// Word vectors (GloVe 6B 100d, the 30,000 most frequent words, int8; built by bin/build-vectors.ts)
// and SIF sentence vectors: the rank-weighted mean of a text's word vectors, with the first
// principal direction of the tenant's own texts removed (Arora, Liang and Ma, 2017).

export interface WordVectors {
  readonly dim: number;
  readonly index: ReadonlyMap<string, number>; // word -> row, in frequency order
  readonly data: Int8Array; // rows x dim
  readonly scale: number; // value = data / 127 * scale
}

export function parseVectors(bytes: Uint8Array): WordVectors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'GLV1') throw new Error('not a GLV1 vector file');
  const count = view.getUint32(4, true);
  const dim = view.getUint32(8, true);
  const scale = view.getFloat32(12, true);
  const wordBytes = view.getUint32(16, true);
  const words = new TextDecoder().decode(bytes.subarray(20, 20 + wordBytes)).split('\n');
  const index = new Map(words.map((w, i) => [w, i] as const));
  const start = 20 + wordBytes;
  return { dim, index, scale, data: new Int8Array(bytes.buffer, bytes.byteOffset + start, count * dim) };
}

// SIF weight a / (a + p(w)), p(w) from the word's frequency rank by Zipf's law (p ~ 0.1 / rank).
const SIF_A = 1e-3;
const weightOf = (row: number) => SIF_A / (SIF_A + 0.1 / (row + 1));

/** The SIF mean of the words' vectors (unnormalised), or null when no word has a vector. */
export function sentenceVector(v: WordVectors, words: readonly string[]): Float32Array | null {
  const out = new Float32Array(v.dim);
  let n = 0;
  for (const w of words) {
    const row = v.index.get(w);
    if (row === undefined) continue;
    const k = (weightOf(row) * v.scale) / 127;
    const base = row * v.dim;
    for (let i = 0; i < v.dim; i++) out[i]! += k * v.data[base + i]!;
    n++;
  }
  if (n === 0) return null;
  for (let i = 0; i < v.dim; i++) out[i]! /= n;
  return out;
}

/**
 * The first principal direction (unit length) of the vectors, by power iteration until a step
 * turns it by next to nothing (3 to 8 steps on a knowledge base or a tenant's phrases: the common
 * direction of sentence vectors dominates); null for none.
 */
export function principalDirection(vs: readonly Float32Array[], iterations = 20): Float32Array | null {
  if (vs.length < 2) return null;
  const dim = vs[0]!.length;
  let u = new Float32Array(dim).fill(1 / Math.sqrt(dim));
  for (let it = 0; it < iterations; it++) {
    const next = new Float32Array(dim);
    for (const x of vs) {
      let d = 0;
      for (let i = 0; i < dim; i++) d += x[i]! * u[i]!;
      for (let i = 0; i < dim; i++) next[i]! += d * x[i]!;
    }
    let n = 0;
    for (let i = 0; i < dim; i++) n += next[i]! * next[i]!;
    n = Math.sqrt(n);
    if (n === 0) return null;
    let turn = 0;
    for (let i = 0; i < dim; i++) {
      next[i]! /= n;
      turn += next[i]! * u[i]!;
    }
    u = next;
    if (1 - Math.abs(turn) < 1e-7) break;
  }
  return u;
}

/** x with its component along u removed, then scaled to unit length (in place). */
export function removeAndNormalise(x: Float32Array, u: Float32Array | null): Float32Array {
  if (u) {
    let d = 0;
    for (let i = 0; i < x.length; i++) d += x[i]! * u[i]!;
    for (let i = 0; i < x.length; i++) x[i]! -= d * u[i]!;
  }
  let n = 0;
  for (let i = 0; i < x.length; i++) n += x[i]! * x[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < x.length; i++) x[i]! /= n;
  return x;
}

export const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
