import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ENCODER_PACKAGES } from '#infra/function.ts';

// The NLU's one entry re-exports the write-time Markdown reader beside the chat path's model.
// Loading one of its modules affects nothing outside it (shared/nlu/package.json says so to the
// bundler), so a bundle keeps only what it uses of the index: the chat path carries no Markdown parser.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function packagesOf(source: string): Promise<string[]> {
  const out = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    metafile: true,
    logLevel: 'silent',
    // As deployed: the encoder's runtime is never bundled (infra/function.ts).
    external: [...ENCODER_PACKAGES],
  });
  const inputs = Object.values(out.metafile.outputs)[0]!.inputs;
  return [
    ...new Set(
      Object.entries(inputs)
        .filter(([path, { bytesInOutput }]) => bytesInOutput > 0 && path.includes('node_modules/'))
        .map(([path]) => path.split('node_modules/')[1]!.split('/')[0]!),
    ),
  ].sort();
}

describe('shared/nlu/index.ts', () => {
  it("gives the chat path's imports without the Markdown and HTML parsers", async () => {
    const chat = `import { answer, buildKnowledgeIndex, encoder, evidenceFor, messageToRead, trainModel, wordVectors } from '#shared/nlu/index.ts';
      console.log(answer, buildKnowledgeIndex, encoder, evidenceFor, messageToRead, trainModel, wordVectors);`;
    expect(await packagesOf(chat)).toEqual(['stemmer']);
  });

  it('gives a route its constants alone', async () => {
    const route = `import { DEFAULT_INTENT_THRESHOLD, ENTITY_TYPES } from '#shared/nlu/index.ts';
      console.log(DEFAULT_INTENT_THRESHOLD, ENTITY_TYPES);`;
    expect(await packagesOf(route)).toEqual([]);
  });
});
