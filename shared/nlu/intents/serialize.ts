import { gunzipSync, gzipSync } from 'node:zlib';
import { classifierOf, widthOf, type Classifier, type Model } from './classifier.ts';
import { HashIndex } from './features.ts';
import type { WordVectors } from '../encoder/glove.ts';
import { DIMS } from '../encoder/vector-math.ts';

// A stored form of a trained model, for when training lazily stops being cheap enough (the
// bench measures both). Weights are quantised to int8 per feature row and the whole is
// gzipped: near-zero weights, most of them, compress to almost nothing.

// Version 3: one-vs-rest SVM weights, class-major, with a top-K "none" calibration, and the
// sentence-vector block's direction and weight (the word vectors themselves are the shipped file's,
// given back on reading). A stored model of another version is refused; the caller trains afresh.
const VERSION = 3;

interface Header {
  v: typeof VERSION;
  labels: string[];
  opts: Model['vec']['opts'];
  unseenIdf: number;
  temperature: number;
  noneScore: number;
  topK: number;
  V: number; // columns of W: the hashed features, then the sentence vector's `dense.dim`
  C: number;
  dense: { dim: number; weight: number; direction: number[] | null } | null;
  /** The sentence encoder's block: its weight (its DIMS columns come last). */
  encoded?: number;
  /** The encoder's fused score: its weight and which classes have a centroid (stored after the weights, DIMS floats each). */
  centroids?: { weight: number; present: boolean[] };
}

export function serializeClassifier(classifier: Classifier & { model: Model }): Buffer {
  const { model } = classifier;
  const V = widthOf(model);
  const C = model.labels.length;
  const d = model.dense;
  const dense = d ? { dim: d.vectors.dim, weight: d.weight, direction: d.direction ? [...d.direction] : null } : null;
  const header: Header = {
    v: VERSION,
    labels: model.labels,
    opts: model.vec.opts,
    unseenIdf: model.vec.unseenIdf,
    temperature: model.temperature,
    noneScore: model.noneScore,
    topK: model.topK,
    V,
    C,
    dense,
    ...(model.encoded ? { encoded: model.encoded.weight } : {}),
    ...(model.centroids
      ? { centroids: { weight: model.centroids.weight, present: model.centroids.of.map((c) => c !== null) } }
      : {}),
  };
  const scales = new Float32Array(V);
  const q = new Int8Array(V * C);
  for (let f = 0; f < V; f++) {
    let max = 0;
    for (let c = 0; c < C; c++) max = Math.max(max, Math.abs(model.W[c * V + f]!));
    const scale = max / 127 || 1;
    scales[f] = scale;
    for (let c = 0; c < C; c++) q[c * V + f] = Math.round(model.W[c * V + f]! / scale);
  }
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const centroids = (model.centroids?.of ?? []).filter((c): c is Float32Array => c !== null);
  const parts = [len, json, model.vec.hashes, model.vec.idf, model.b, scales, q, ...centroids].map((p) =>
    Buffer.isBuffer(p) ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength),
  );
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

/** `vectors`: the word vectors the model was trained with, for a model with a sentence-vector block. */
export function deserializeClassifier(
  bytes: Uint8Array,
  vectors: WordVectors | null = null,
): Classifier & { model: Model } {
  const buf = gunzipSync(bytes);
  const jsonLen = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + jsonLen).toString('utf8')) as Header;
  if (header.v !== VERSION) throw new Error(`unknown model format ${String(header.v)}`);
  const { V, C, dense } = header;
  if (dense && (!vectors || vectors.dim !== dense.dim))
    throw new Error('the model needs the word vectors it was trained with');
  const H = V - (dense?.dim ?? 0) - (header.encoded === undefined ? 0 : DIMS);
  let at = 4 + jsonLen;
  const take = (bytesLen: number): ArrayBuffer => {
    const ab = buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + bytesLen);
    at += bytesLen;
    return ab;
  };
  const hashes = new Uint32Array(take(4 * H));
  const idf = new Float32Array(take(4 * H));
  const b = new Float32Array(take(4 * C));
  const scales = new Float32Array(take(4 * V));
  const q = new Int8Array(take(V * C));
  const centroids = header.centroids && {
    weight: header.centroids.weight,
    of: header.centroids.present.map((p) => (p ? new Float32Array(take(4 * DIMS)) : null)),
  };
  const W = new Float32Array(V * C);
  for (let c = 0; c < C; c++) for (let f = 0; f < V; f++) W[c * V + f] = q[c * V + f]! * scales[f]!;
  const index = new HashIndex(H);
  for (const h of hashes) index.add(h);
  return classifierOf({
    labels: header.labels,
    vec: { opts: header.opts, hashes, index, idf, unseenIdf: header.unseenIdf },
    W,
    b,
    temperature: header.temperature,
    noneScore: header.noneScore,
    topK: header.topK,
    ...(header.encoded === undefined ? {} : { encoded: { weight: header.encoded } }),
    ...(centroids ? { centroids } : {}),
    ...(dense && vectors
      ? {
          dense: {
            vectors,
            weight: dense.weight,
            direction: dense.direction ? Float32Array.from(dense.direction) : null,
          },
        }
      : {}),
  });
}
