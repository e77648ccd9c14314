import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deserializeClassifier, serializeClassifier, trainClassifier, wordVectors } from '#shared/nlu/index.ts';
import { shopIntents as starterIntents } from '../fixtures/shop-intents.ts';

const vectors = wordVectors();
const trained = trainClassifier(starterIntents, {}, vectors);
const bytes = serializeClassifier(trained);

describe('serialised classifier', () => {
  it('ranks as the trained one does, confidences within the int8 rounding', () => {
    const restored = deserializeClassifier(bytes, vectors);
    for (const intent of starterIntents) {
      for (const p of intent.trainingPhrases.slice(0, 3)) {
        const a = trained.classify(p);
        const b = restored.classify(p);
        expect(b[0]!.intent, p).toBe(a[0]!.intent);
        expect(Math.abs(b[0]!.confidence - a[0]!.confidence), p).toBeLessThan(0.05);
      }
    }
  });

  it('needs the word vectors back for a model trained with them', () => {
    expect(() => deserializeClassifier(bytes)).toThrow(/needs the word vectors/);
    const plain = trainClassifier(starterIntents, { vectorWeight: 0 });
    const names = (r: Array<{ intent: string }>) => r.map((x) => x.intent);
    expect(names(deserializeClassifier(serializeClassifier(plain)).classify('hello there'))).toEqual(
      names(plain.classify('hello there')),
    );
  });

  it('refuses a model stored in another format version', () => {
    const raw = gunzipSync(bytes);
    const len = raw.readUInt32LE(0);
    const header = JSON.parse(raw.subarray(4, 4 + len).toString('utf8'));
    const old = Buffer.from(JSON.stringify({ ...header, v: 1 }));
    const lenBuf = Buffer.alloc(4);
    lenBuf.writeUInt32LE(old.length);
    expect(() => deserializeClassifier(gzipSync(Buffer.concat([lenBuf, old, raw.subarray(4 + len)])))).toThrow(
      /unknown model format 1/,
    );
  });
});
