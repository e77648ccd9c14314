// The sentence encoder's fused score, for a tenant too big to learn the encoder's vector as features:
// each class's score gains a weight times the cosine of the message and the class's centroid.

/** The fused score's terms of a vector against the centroids: weight x (cosine - its mean over the classes that have one). */
export function fusedTerms(v: Float32Array, centroids: Array<Float32Array | null>, weight: number): Float64Array {
  const out = new Float64Array(centroids.length);
  let sum = 0;
  let n = 0;
  centroids.forEach((c, k) => {
    if (!c) return;
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * c[i]!;
    out[k] = s;
    sum += s;
    n++;
  });
  const mean = n > 0 ? sum / n : 0;
  centroids.forEach((c, k) => {
    out[k] = c ? weight * (out[k]! - mean) : 0;
  });
  return out;
}

/** Unit centroids of each class's vectors among `rows` (null for a class with none). */
export function centroidsOf(
  rows: Iterable<number>,
  y: ArrayLike<number>,
  vecs: Array<Float32Array | null>,
  C: number,
): Array<Float32Array | null> {
  const sums: Array<Float32Array | null> = Array.from({ length: C }, () => null);
  for (const i of rows) {
    const v = vecs[i];
    if (!v) continue;
    sums[y[i]!] ??= new Float32Array(v.length);
    const s = sums[y[i]!]!;
    for (let k = 0; k < v.length; k++) s[k]! += v[k]!;
  }
  return sums.map((s) => {
    if (!s) return null;
    let n = 0;
    for (const x of s) n += x * x;
    n = Math.sqrt(n) || 1;
    for (let k = 0; k < s.length; k++) s[k]! /= n;
    return s;
  });
}
