// The benchmarks' sentence vectors, cached on disk (bench-results/vectors/, ignored by git) by a
// hash of the text, in the int8 form the platform stores: a repeated run embeds only new texts.
// One process at a time writes the cache (records are appended after each batch).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { dequantize, DIMS, encoder, quantize, type TextVectors } from '#shared/nlu/index.ts';
import { repoRoot } from '../kb/data.ts';

const dir = resolve(repoRoot, 'bench-results/vectors');
const file = resolve(dir, 'use-lite.bin');
const KEY = 16;
const RECORD = KEY + DIMS;

const keyOf = (text: string) =>
  createHash('sha1')
    .update(text)
    .digest('hex')
    .slice(0, KEY * 2);

let stored: Map<string, Uint8Array> | undefined;

function load(): Map<string, Uint8Array> {
  if (stored) return stored;
  stored = new Map();
  if (!existsSync(file)) return stored;
  const buf = readFileSync(file);
  for (let at = 0; at + RECORD <= buf.length; at += RECORD) {
    stored.set(buf.subarray(at, at + KEY).toString('hex'), buf.subarray(at + KEY, at + RECORD));
  }
  return stored;
}

const BATCH = 256;

/** Unit vectors of these texts (trimmed; empty ones left out), embedding only those not cached. */
export async function cachedVectors(
  texts: Iterable<string>,
  log: (msg: string) => void = () => {},
): Promise<TextVectors> {
  const cache = load();
  const wanted = [...new Set([...texts].map((t) => t.trim()).filter((t) => t.length > 0))];
  // By length: a batch is padded to its longest text.
  const missing = wanted.filter((t) => !cache.has(keyOf(t))).sort((a, b) => a.length - b.length);
  if (missing.length > 0) {
    mkdirSync(dir, { recursive: true });
    const enc = await encoder();
    const started = performance.now();
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const vectors = await enc.embed(batch);
      const out = Buffer.alloc(batch.length * RECORD);
      batch.forEach((t, k) => {
        const key = keyOf(t);
        const q = quantize(vectors[k]!);
        out.write(key, k * RECORD, 'hex');
        out.set(q, k * RECORD + KEY);
        cache.set(key, q);
      });
      appendFileSync(file, out);
      const done = Math.min(i + BATCH, missing.length);
      log(`embedded ${done} / ${missing.length} texts (${((performance.now() - started) / done).toFixed(0)} ms each)`);
    }
  }
  return new Map(wanted.map((t) => [t, dequantize(cache.get(keyOf(t))!)]));
}
