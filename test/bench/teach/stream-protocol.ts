// Why bench:teach (through the API) and taught-encoder.ts (in process) disagree on "taught ahead of
// random": bench:teach's protocol replayed in process, with the same model and vectors.
// `npx tsx test/bench/teach/stream-protocol.ts` (SEEDS=42,...,442; DRAWS=5). Per split, three ways to
// pick up to 5 messages an intent, against as many random ones (the same count per intent; the mean of
// DRAWS random draws), top-1 on the split's fifth:
// - once: the misses of the first model over the traffic in file order (taught-encoder.ts's pick);
// - shuffled: the same over the traffic shuffled as bench:teach shuffles it;
// - batches: bench:teach's, shuffled traffic in batches of 400, retrained after each batch.
import { rng, textsToEmbed, trainClassifier, wordVectors } from '#shared/nlu/index.ts';
import { loadBanking77, perLabel, shuffle, stratifiedSplit, toIntents, type Example } from '../nlu/data.ts';
import { cachedVectors } from '../vectors/cache.ts';

const all = loadBanking77();
const names = toIntents(all).map((i) => ({ name: i.name, trainingPhrases: [] }));
const vectors = await cachedVectors([...all.map(([t]) => t), ...textsToEmbed({ intents: names })]);
const glove = wordVectors();
const SEEDS = (process.env.SEEDS ?? '42,142,242,342,442').split(',').map(Number);
const DRAWS = Number(process.env.DRAWS ?? 5);
const train = (xs: Example[]) => trainClassifier(toIntents(xs), {}, glove, [], vectors);
const right = (c: ReturnType<typeof train>, [t, l]: Example) =>
  c.classify(t, 1, vectors.get(t.trim()))[0]?.intent === l;
const accuracy = (xs: Example[], val: Example[]) => {
  const c = train(xs);
  return val.filter((x) => right(c, x)).length / val.length;
};

function misses(seedSet: Example[], traffic: Example[], batch: number): Example[] {
  const count = new Map<string, number>();
  const taught: Example[] = [];
  for (let i = 0; i < traffic.length; i += batch) {
    const model = train([...seedSet, ...taught]);
    for (const x of traffic.slice(i, i + batch)) {
      if ((count.get(x[1]) ?? 0) >= 5 || right(model, x)) continue;
      count.set(x[1], (count.get(x[1]) ?? 0) + 1);
      taught.push(x);
    }
  }
  return taught;
}

const sums = new Map<string, { taught: number; random: number; n: number }>();
for (const seed of SEEDS) {
  const [rest, val] = stratifiedSplit(all, 0.2, seed);
  const seedSet = perLabel(rest, 10, seed);
  const seeded = new Set(seedSet.map(([t]) => t));
  const inOrder = rest.filter(([t]) => !seeded.has(t));
  const shuffled = shuffle(inOrder, rng(seed + 1));
  for (const [way, taught] of [
    ['once', misses(seedSet, inOrder, Infinity)],
    ['shuffled', misses(seedSet, shuffled, Infinity)],
    ['batches', misses(seedSet, shuffled, 400)],
  ] as const) {
    const per = new Map<string, number>();
    for (const [, l] of taught) per.set(l, (per.get(l) ?? 0) + 1);
    // Random draws differ by a point or more: their mean over DRAWS draws.
    let random = 0;
    for (let d = 0; d < DRAWS; d++) {
      const rand = rng(seed + 2 + 1000 * d);
      random +=
        accuracy(
          [
            ...seedSet,
            ...[...per].flatMap(([l, k]) =>
              shuffle(
                inOrder.filter((x) => x[1] === l),
                rand,
              ).slice(0, k),
            ),
          ],
          val,
        ) / DRAWS;
    }
    const row = { taught: accuracy([...seedSet, ...taught], val), random };
    const s = sums.get(way) ?? { taught: 0, random: 0, n: 0 };
    sums.set(way, { taught: s.taught + row.taught, random: s.random + row.random, n: s.n + 1 });
    console.log(
      `split ${seed} ${way}: ${taught.length} taught ${(100 * row.taught).toFixed(1)} %, as many random ${(100 * row.random).toFixed(1)} %`,
    );
  }
}
for (const [way, s] of sums)
  console.log(
    `${way}: taught ${((100 * s.taught) / s.n).toFixed(1)} %, random ${((100 * s.random) / s.n).toFixed(1)} % (mean of ${s.n} splits)`,
  );
