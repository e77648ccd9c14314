// Classifier options on few-phrase tuning tenants (CLINC150 train cut 80 / 20), BANKING77 10 beside with B77=1: `npx tsx test/bench/nlu/few-phrases.ts '{"encoderWeight":1.4}'`
import { intentTextsToEmbed, trainClassifier, wordVectors } from '#shared/nlu/index.ts';
import { loadBanking77, loadClinc150, stratifiedSplit, toIntents, perLabel, type Example } from './data.ts';
import { cachedVectors } from '../vectors/cache.ts';
const VEC = wordVectors();
const d = loadClinc150();
const [btr, bva] = stratifiedSplit(loadBanking77(), 0.2, 20);
function tuning(seed: number, count: number, per: number): [Example[], Example[]] {
  const labels = [...new Set(d.train.map(([, l]) => l))].filter((_, i) => (i * 7 + seed) % 150 < count);
  const keep = new Set(labels);
  const n = new Map<string, number>();
  const tr: Example[] = [];
  const as: Example[] = [];
  const t = new Map<string, number>();
  for (const x of d.train) {
    if (!keep.has(x[1])) continue;
    const k = n.get(x[1]) ?? 0;
    n.set(x[1], k + 1);
    if (k % 5 === seed % 5) as.push(x);
    else if ((t.get(x[1]) ?? 0) < per) {
      t.set(x[1], (t.get(x[1]) ?? 0) + 1);
      tr.push(x);
    }
  }
  return [tr, as];
}
const sets: Array<[string, Example[], Example[]]> = [
  ['t150x10', ...tuning(1, 150, 10)],
  ['t50x6', ...tuning(2, 50, 6)],
  ['t80x20', ...tuning(3, 80, 20)],
  ...(process.env.B77 ? [['b77x10', perLabel(btr, 10, 20), bva] as [string, Example[], Example[]]] : []),
];
const texts = sets.flatMap(([, a, b]) => [...a, ...b].map(([t]) => t));
const names = sets.flatMap(([, a]) =>
  toIntents(a).flatMap((i) => intentTextsToEmbed({ name: i.name, trainingPhrases: [] })),
);
const enc = await cachedVectors([...texts, ...names]);
for (const line of process.argv.slice(2)) {
  const opts = JSON.parse(line);
  const out: string[] = [];
  for (const [name, tr, va] of sets) {
    const t = performance.now();
    const c = trainClassifier(toIntents(tr), opts, VEC, [], enc);
    const ms = performance.now() - t;
    let ok = 0;
    const lat: number[] = [];
    for (const [text, label] of va) {
      const s = performance.now();
      const r = c.classify(text, 1, enc.get(text.trim()));
      lat.push(performance.now() - s);
      if (r[0]!.intent === label) ok++;
    }
    lat.sort((a, b) => a - b);
    out.push(
      `${name} ${((100 * ok) / va.length).toFixed(2)} (${ms.toFixed(0)} ms, p50 ${lat[lat.length >> 1]!.toFixed(2)})`,
    );
  }
  console.log(line, out.join(' | '));
}
