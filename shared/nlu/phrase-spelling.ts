// How nearly a message is spelled like one of an intent's phrases: the Dice coefficient of their
// character trigrams, the best over the intent's phrases. Informal spelling and typos ("byee",
// "thx", "get me an agnet") share most trigrams with a phrase where they share no word, so this
// tells the answer policy that the message has been seen before, in other letters (measured in
// test/bench/answers.ts).

export interface PhraseSpelling {
  /** The best Dice coefficient (0..1) of the message's character trigrams and one of the intent's phrases'. */
  nearest(text: string, intent: string): number;
}

// A trigram as one number: three UTF-16 code units fit in 48 bits, exactly.
function trigrams(text: string): Float64Array {
  const t = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const keys = new Set<number>();
  for (let i = 0; i + 3 <= t.length; i++) keys.add(t.charCodeAt(i) * 2 ** 32 + t.charCodeAt(i + 1) * 2 ** 16 + t.charCodeAt(i + 2));
  return Float64Array.from(keys).sort();
}

function dice(a: Float64Array, b: Float64Array): number {
  if (a.length + b.length === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) { shared++; i++; j++; } else if (a[i]! < b[j]!) i++; else j++;
  }
  return (2 * shared) / (a.length + b.length);
}

/** An intent's phrases are read on its first question (most intents are never near the top). */
export function phraseSpelling(intents: ReadonlyArray<{ name: string; trainingPhrases: readonly string[] }>): PhraseSpelling {
  const phrases = new Map(intents.map((i) => [i.name, i.trainingPhrases]));
  const read = new Map<string, Float64Array[]>();
  // The top candidates are asked about one message in turn.
  let last: { text: string; grams: Float64Array } = { text: '', grams: new Float64Array(0) };
  return {
    nearest(text, intent) {
      let grams = read.get(intent);
      if (!grams) {
        grams = (phrases.get(intent) ?? []).map(trigrams);
        read.set(intent, grams);
      }
      if (last.text !== text) last = { text, grams: trigrams(text) };
      const q = last.grams;
      let best = 0;
      for (const g of grams) best = Math.max(best, dice(q, g));
      return best;
    },
  };
}
