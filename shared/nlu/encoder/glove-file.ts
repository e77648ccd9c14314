// The word vectors shipped with the code (shared/nlu/encoder/assets/glove-30k.bin, 3.1 MB: GloVe 6B 100d,
// PDDL, the 30,000 most frequent words in int8, built by bin/build-vectors.ts), read once per
// container on first use. Function bundles carry the file at the same place relative to the
// bundle (infra/function.ts copies it), so one relative URL serves sources and bundles.
import { readFileSync } from 'node:fs';
import { parseVectors, type WordVectors } from './glove.ts';

let loaded: WordVectors | undefined;

export function wordVectors(): WordVectors {
  loaded ??= parseVectors(readFileSync(new URL(ASSET, import.meta.url)));
  return loaded;
}

// Relative to this module in the sources, and to the bundle's entry file once bundled.
const ASSET = './assets/glove-30k.bin';
