// The sentence encoder's evidence for intents: how close a message comes in meaning to an intent's
// closest phrase (or its name), for the answer policy.
import { namePhrase } from './features.ts';
import { cosine, type TextVectors } from '../encoder/vector-math.ts';

export interface IntentMeaning {
  /** The cosine of the message and the intent's closest phrase; null when the intent has no vectors. */
  closeness(vector: Float32Array, intent: string): number | null;
}

export function intentMeaning(
  intents: ReadonlyArray<{ name: string; trainingPhrases: readonly string[] }>,
  vectors: TextVectors | undefined,
): IntentMeaning {
  const byIntent = new Map<string, Float32Array[]>();
  if (vectors) {
    for (const i of intents) {
      const vs = intentTextsToEmbed(i)
        .map((t) => vectors.get(t))
        .filter((v): v is Float32Array => v !== undefined);
      if (vs.length > 0) byIntent.set(i.name, vs);
    }
  }
  return {
    closeness(vector, intent) {
      const vs = byIntent.get(intent);
      if (!vs) return null;
      let best = -1;
      for (const v of vs) best = Math.max(best, cosine(vector, v));
      return best;
    },
  };
}

// The texts the encoder embeds for an intent: the vectors the models read (TextVectors) are keyed by them.
const trimmed = (texts: Iterable<string>) => [...texts].map((t) => t.trim()).filter((t) => t.length > 0);

/** An intent's texts: its training phrases (taught examples included) and its name read as words. */
export function intentTextsToEmbed(intent: { name: string; trainingPhrases: readonly string[] }): string[] {
  return trimmed([...intent.trainingPhrases, namePhrase(intent.name)]);
}
