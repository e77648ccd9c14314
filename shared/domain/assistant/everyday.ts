import type { TrainingIntent } from '#shared/nlu/index.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { SMALL_TALK_KINDS as KINDS } from '#shared/domain/small-talk.ts';

// Small talk is the same at every business: "byee", "ok thats all i needed", "get me a human".
// A team writes eight phrases for its goodbye intent and customers say it a hundred ways, so an
// intent of one of these kinds also learns the starter set's phrases for it (at a lower weight,
// shared/nlu/intents/classifier.ts `everydayWeight`). Its kind is read from its name; the first intent
// (by name) of each kind gets them, so two intents never share them.

const phrasesOf = new Map(starterIntents.filter((i) => i.name in KINDS).map((i) => [i.name, i.trainingPhrases]));
const kindOf = new Map(Object.entries(KINDS).flatMap(([kind, names]) => names.map((n) => [n, kind] as const)));
export { isSmallTalk } from '#shared/domain/small-talk.ts';

/** The intents, each small-talk intent with the starter set's phrases of its kind as `everydayPhrases`. */
export function withEverydayPhrases<T extends TrainingIntent>(
  intents: readonly T[],
): Array<T & Pick<TrainingIntent, 'everydayPhrases'>> {
  // Each kind's intent: the first by name of those its name marks.
  const first = new Map<string, string>();
  for (const { name } of intents) {
    const kind = kindOf.get(name); // names are lower case with underscores (the intents route checks)
    const held = kind && first.get(kind);
    if (kind && (held === undefined || name < held)) first.set(kind, name);
  }
  const kindOfIntent = new Map([...first].map(([kind, name]) => [name, kind]));
  return intents.map((i) => {
    const kind = kindOfIntent.get(i.name);
    return kind ? { ...i, everydayPhrases: phrasesOf.get(kind) ?? [] } : i;
  });
}
