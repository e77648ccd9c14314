// BANKING77 taught in process with the sentence encoder's evidence (the API path needs the stored
// vectors): `npx tsx test/bench/teach/taught-encoder.ts` (ENCODER=0: words only). bench:teach's
// protocol, simplified to one pass: on each split, 10 phrases an intent, the rest of the training
// part as traffic classified once by that model, and the first 5 misclassified messages of each
// intent taught to it; beside it, 5 random traffic messages an intent. Top-1 on the split's fifth.
import { rng, textsToEmbed, trainClassifier, wordVectors } from '#shared/nlu/index.ts';
import { loadBanking77, perLabel, stratifiedSplit, toIntents, type Example } from '../nlu/data.ts';
import { cachedVectors } from '../vectors/cache.ts';

const all = loadBanking77();
const names = toIntents(all).map((i) => ({ name: i.name, trainingPhrases: [] }));
const vectors =
  process.env.ENCODER === '0'
    ? undefined
    : await cachedVectors([...all.map(([t]) => t), ...textsToEmbed({ intents: names })]);
const glove = wordVectors();
const SEEDS = (process.env.SEEDS ?? '42,142,242').split(',').map(Number);
const accuracy = (intents: ReturnType<typeof toIntents>, val: Example[]) => {
  const c = trainClassifier(intents, {}, glove, [], vectors);
  return val.filter(([t, l]) => c.classify(t, 1, vectors?.get(t.trim()))[0]?.intent === l).length / val.length;
};
const rows: Array<{ before: number; taught: number; random: number }> = [];
for (const seed of SEEDS) {
  const [train, val] = stratifiedSplit(all, 0.2, seed);
  const seedSet = perLabel(train, 10, seed);
  const seeded = new Set(seedSet.map(([t]) => t));
  const traffic = train.filter(([t]) => !seeded.has(t));
  const model = trainClassifier(toIntents(seedSet), {}, glove, [], vectors);
  const count = new Map<string, number>();
  const taught: Example[] = [];
  for (const [t, l] of traffic) {
    if ((count.get(l) ?? 0) >= 5 || model.classify(t, 1, vectors?.get(t.trim()))[0]?.intent === l) continue;
    count.set(l, (count.get(l) ?? 0) + 1);
    taught.push([t, l]);
  }
  const rand = rng(seed);
  const random = perLabel(
    traffic.map((x) => x).sort(() => rand() - 0.5),
    5,
    seed,
  );
  rows.push({
    before: accuracy(toIntents(seedSet), val),
    taught: accuracy(toIntents([...seedSet, ...taught]), val),
    random: accuracy(toIntents([...seedSet, ...random]), val),
  });
  console.log(`split ${seed}: ${JSON.stringify(rows.at(-1))}`);
}
const mean = (k: 'before' | 'taught' | 'random') =>
  Math.round((1000 * rows.reduce((s, r) => s + r[k], 0)) / rows.length) / 10;
console.log(
  `${vectors ? 'encoder' : 'words only'}: before ${mean('before')} %, 5 taught ${mean('taught')} %, 5 random ${mean('random')} % (mean of ${rows.length} splits)`,
);
