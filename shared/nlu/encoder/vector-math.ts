// Sentence vectors without the model: their size, the type the models read, cosine and the stored
// int8 form. The chat path's models import this, never the encoder's runtime (shared/nlu/encoder/encoder.ts).

export const DIMS = 512;

/**
 * Unit vectors keyed by the exact trimmed text that was embedded (an intent's phrase, a taught or
 * `none` example, an article's title, question or passage as the knowledge index stores it).
 * A text without an entry simply gets no encoder evidence: it is matched by its words alone.
 */
export type TextVectors = ReadonlyMap<string, Float32Array>;

export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Cosine of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The stored form: int8 per dimension, scaled by the vector's largest component (512 bytes for
 * 512 dimensions, against 2,048 as float32); cosines survive to about 1e-3.
 */
export function quantize(v: Float32Array): Uint8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const q = new Int8Array(v.length);
  const s = max > 0 ? 127 / max : 0;
  for (let i = 0; i < v.length; i++) q[i] = Math.round(v[i]! * s);
  return new Uint8Array(q.buffer);
}

/** A stored vector back as a unit vector. */
export function dequantize(b: Uint8Array): Float32Array {
  const q = new Int8Array(b.buffer, b.byteOffset, b.byteLength);
  return unit(Float32Array.from(q));
}
