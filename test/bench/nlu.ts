// NLU benchmark: `npm run bench:nlu`. Trains on the training files under ../shared/datasets and
// reports on validation data only (CLINC150 val/oos_val; a stratified 20 % carved from BANKING77's
// training file). Options can be overridden for experiments: NLU_OPTS='{"cost":2}'; a scratch
// sweep over option sets: test/bench/nlu/sweep.ts.
//
// Tried on the one-vs-rest SVMs and not kept: CLINC150 / BANKING77 / BANKING77 10-shot accuracy
// from test/bench/nlu/sweep.ts (its 10-shot sample differs from this file's), seed noise about
// +-0.2 / +-0.2 / +-0.5, against the baseline of the time in brackets.
// [char 4-grams, full idf: 93.4 / 89.9 / 72.4]
// - char 3-5-grams 93.3 / 90.1 / 72.0 at twice the time; 3-4 93.4 / 90.1 / 72.6; 3-3 93.4 / 90.0 / 72.5
// - char n-grams across word boundaries 93.4 / 90.1 / 70.9; word skip-bigrams 93.3 / 90.1 / 72.3;
//   word trigrams 93.2 / 90.2 / 72.9; binary tf 93.4 / 90.0 / 72.2; idf^1.5 92.4 / 89.4 / 70.8
// - hinge loss 92.3 / 89.7 / 68.9; cost 0.5 93.0 / 89.8 / 71.6; cost 2 93.2 / 89.9 / 72.6
// - liblinear's full re-check pass after shrinking: same accuracy, 2-3x the time
// [sqrt idf, no calibration split: 93.5 / 90.1 / 73.4]
// - NB-weighted features (NBSVM) 92.0 / 89.0 / 67.5 (signed ratio), 92.9 / 89.8 / 71.4 (damped)
// - class centroids added to the weights 93.3 / 90.2 / 74.1, but 10-shot CLINC150 -0.5
// - one-word-dropped copies of each phrase 93.8 / 90.2 / 72.7 at twice the time
// [positive weight 8: 93.8 / 90.4 / 73.8]
// - bigrams over stems 93.9 / 90.2 / 73.5; stems in place of words 93.9 / 90.3 / 73.8
// - SIF sentence vectors of the shipped GloVe words (shared/nlu/encoder/glove.ts; the tenant's main direction
//   removed) mixed into each class's SVM score before the calibration: s' = (1-a) s + a (mean + sd z),
//   z the class centroid's cosine standardised over the held-out (row, class) pairs, the held-out
//   rows scored against centroids without their own fold. CLINC150 / 20-intent tenant / BANKING77 /
//   BANKING77 10-shot accuracy, CLINC150 acc/oos R at 0.5 [today 93.73 / 97.75 / 90.19 / 72.47, 88.67/91]:
//   a 0.25: 94.33 / 97.75 / 90.29 / 73.77, 89.07/90; a 0.35: 94.37 / 98 / 90.19 / 74.17, 89.1/90;
//   a 0.5: 94.23 / 97.25 / 89.09 / 74.37, 88.53/92; standardised within each message instead
//   (a 0.35): 94.37 / 97.75 / 90.09 / 74.22. The nearest phrase's cosine instead of the centroid's
//   (a 0.35 / 0.5): BANKING77 90.94 / 90.89, 10-shot 73.87, but CLINC150 training 15 s and p99 5 ms.
//   Full BANKING77 never gains (the issue's +1.1 not reproduced). Through the answer policy
//   (a 0.35, bench:answers): support mix intent 84.9 -> 85.2, articles and fallback unchanged;
//   help desks' held-out messages 77.4 -> 79.5 % right but their tuning ones 71.5 -> 69.5; with the
//   calibration refitted (answers/fit.ts) the tuning score is 0.7805 / 0.7812 / 0.7770 at
//   a 0.2 / 0.35 / 0.5 against 0.7823 without vectors (refitted at 0.35, intent threshold 0.44:
//   support mix intent 84.2, held-out help desks 77.4). Typical tenant's training 27.6 -> ~34 ms,
//   and intents-only tenants would load the vectors. Not kept.
// [kept, 2026-11-25: the same sentence vectors as 100 more features of every row (weight w; the
//   message's too), which the SVMs weigh themselves. CLINC150 / BANKING77 / BANKING77 10-shot
//   (sweep.ts's sample) [93.73 / 90.19 / 73.97]: w 0.3 94.90 / 90.64 / 74.97; 0.4 94.53 / 90.49 /
//   75.68; 0.5 94.63 / 90.74 / 76.33; 0.65 94.40 / 90.34 / 76.13; 1 93.80 / 89.59 / 75.03; at 0.5 with
//   the vector's 100 dimensions summed in pairs 94.23 / 90.34 / 75.13, in fours 93.87 / 90.69 / 75.13.
//   Training 2 to 3 times as long, hence the size limit (`vectorMaxWork`); NO_VECTORS=1 measures without.]
// Few-shot, 2026-11-26 (sweep.ts; bank10 is BANKING77 at 10 phrases an intent, baseline 76.33):
// - each phrase copied with a content word swapped for a GloVe neighbour (intents under 20 phrases;
//   cosine >= 0.6 to 0.8, 1 to 4 copies, weight 0.1 to 1): 73.4 to 76.2, never above, and training
//   150 ms -> 1.4 s (the neighbours of news-trained vectors: "charged" -> "convicted", "book" -> "novel").
// - the class centroid's cosine added to the score, fading to nothing at 50 phrases: 75.8 to 76.3;
//   SimHash buckets of the words' vectors as word features: 75.7 to 76.4 (CLINC150 10-shot 84.5 -> 83.8).
// - kept: each intent's name ("order_status" read as "order status") as one more phrase of weight 2,
//   never held out of training (`nameWeight`): bank10 76.33 -> 76.93, and on six samples and seeds
//   +0.4 to +1.9; CLINC150 at 10 phrases +0.5 to +1.1, BANKING77 at 5 +2.6 to +4.0; full data
//   CLINC150 93.73 -> 94.07, BANKING77 90.74 -> 90.59 (within noise); weights 0.5 to 8 alike.
// 2026-11-26, on three carved splits of BANKING77 (seeds 20 to 22; full data / 10 phrases an intent,
// baseline 90.82 / 76.03 %):
// - one-vs-one SVMs for the pairs of intents that the calibration's folds put first and second with
//   one of them right (1,300 pairs on BANKING77, 4,164 on CLINC150), consulted for the message's best
//   two, their scores swapped when the pair's model says the second with more than the one-vs-rest
//   margin: 91.17 / 76.61 %, CLINC150 93.90 -> 94.17 %, but training 1.6 -> 2.7 s and 1.45 -> 3.1 s,
//   and tens of megabytes of pair weights in memory; swapping on any pair verdict 90.81 %; pairs
//   seen 3 times or more 90.66 %. Not kept: too little for the memory and the time. The same
//   focus inside the one-vs-rest SVMs instead (trained again with the negatives of the intents each
//   was confused with weighing 2 or 4 times): 90.74 / 76.05 and 90.24 / 75.90 %, at twice the time.
// - the sentence vectors' words weighted by the tenant's own idf besides SIF (power 0.5 / 1):
//   BANKING77 90.24 / 90.44 %, 10 phrases 76.23 / 76.88 % (one split; baseline 90.49 / 76.38).
// - in bench:teach's protocol, in process (three splits, taught %: baseline 79.5 / 81.9 / 80.3):
//   character 3- to 5-grams 80.1 / 80.7 / 80.2, cost 0.5 80.6 / 81.7 / 80.0, cost 2 80.1 / 80.3 /
//   79.2, positive weight 4 79.7 / 81.2 / 79.9, vector weight 0.7 80.3 / 81.6 / 79.8, tolerance
//   0.02 79.7 / 80.9 / 80.0: none ahead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ClassifierOptions,
  deserializeClassifier,
  intentTextsToEmbed,
  serializeClassifier,
  type TextVectors,
  trainClassifier,
  type TrainingIntent,
  wordVectors,
} from '#shared/nlu/index.ts';
import {
  loadBanking77,
  loadClinc150,
  perLabel,
  repoRoot,
  stratifiedSplit,
  toIntents,
  type Example,
} from './nlu/data.ts';
import { cachedVectors } from './vectors/cache.ts';
import { targetTable } from './answers/targets.ts';

const SEED = 20;
const OOS = 'oos';
const options: Partial<ClassifierOptions> = JSON.parse(process.env.NLU_OPTS ?? '{}');
// The word vectors the chat path trains with (NO_VECTORS=1: without, for comparison).
const vectors = process.env.NO_VECTORS === '1' ? null : wordVectors();

interface Row {
  dataset: string;
  encoder: boolean;
  trainPhrases: number;
  intents: number;
  accuracy: number; // in-scope, top-1, no threshold
  macroF1: number;
  threshold?: number;
  accuracyAtThreshold?: number; // in-scope predicted right and above the threshold
  oosRecall?: number;
  oosPrecision?: number;
  atDefault?: { accuracy: number; oosRecall: number; oosPrecision: number }; // threshold 0.5
  trainMs: number;
  modelBytes: number;
  modelMB: number; // in memory
  p50ms: number;
  p99ms: number;
}

const pct = (x: number) => Math.round(x * 10000) / 100;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

function macroF1(gold: string[], pred: string[], labels: string[]): number {
  let sum = 0;
  for (const l of labels) {
    let tp = 0,
      fp = 0,
      fn = 0;
    gold.forEach((g, i) => {
      if (pred[i] === l && g === l) tp++;
      else if (pred[i] === l) fp++;
      else if (g === l) fn++;
    });
    sum += tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
  }
  return sum / labels.length;
}

function evaluate(
  dataset: string,
  train: Example[],
  val: Example[],
  oosVal: Example[] = [],
  encoded?: TextVectors,
): Row {
  const intents: TrainingIntent[] = toIntents(train);
  trainClassifier(intents.slice(0, 5), options, vectors, [], encoded); // warm the JIT so that timings are steady
  const t0 = performance.now();
  const classifier = trainClassifier(intents, options, vectors, [], encoded);
  const trainMs = performance.now() - t0;
  // Resident size of the trained model: its typed arrays plus the feature index.
  const m = classifier.model;
  const heapMB =
    (m.W.byteLength + m.b.byteLength + m.vec.idf.byteLength + m.vec.hashes.byteLength + m.vec.hashes.length * 16) /
    2 ** 20;
  const bytes = serializeClassifier(classifier);
  const restored = deserializeClassifier(bytes, vectors);

  const lat: number[] = [];
  const predict = (text: string) => {
    const s = performance.now();
    const r = classifier.classify(text, 3, encoded?.get(text.trim()));
    lat.push(performance.now() - s);
    return r[0]!;
  };
  const inScope = val.map(([text, label]) => ({ label, ...predict(text) }));
  const outScope = oosVal.map(([text]) => predict(text));
  lat.sort((a, b) => a - b);
  const labels = intents.map((i) => i.name).filter((n) => n !== OOS);
  const row: Row = {
    dataset,
    encoder: encoded !== undefined,
    trainPhrases: train.length,
    intents: labels.length,
    accuracy: pct(inScope.filter((r) => r.intent === r.label).length / inScope.length),
    macroF1: pct(
      macroF1(
        inScope.map((r) => r.label),
        inScope.map((r) => r.intent),
        labels,
      ),
    ),
    trainMs: Math.round(trainMs),
    modelBytes: bytes.length,
    modelMB: Math.round(heapMB * 10) / 10,
    p50ms: Math.round(quantile(lat, 0.5) * 1000) / 1000,
    p99ms: Math.round(quantile(lat, 0.99) * 1000) / 1000,
  };
  // The stored model must answer as the trained one does (int8 weights: same top intent nearly always).
  const sample = val.slice(0, 500);
  const agree = sample.filter(
    ([t]) =>
      restored.classify(t, 1, encoded?.get(t.trim()))[0]!.intent ===
      classifier.classify(t, 1, encoded?.get(t.trim()))[0]!.intent,
  ).length;
  if (agree < 0.98 * sample.length)
    throw new Error(`deserialised model disagrees on ${sample.length - agree} of ${sample.length}`);

  if (oosVal.length > 0) {
    const at = (th: number) => {
      const inOk = inScope.filter((r) => r.intent === r.label && r.confidence >= th).length;
      const isOos = (r: { intent: string; confidence: number }) => r.intent === OOS || r.confidence < th;
      const oosHit = outScope.filter(isOos).length;
      const oosFalse = inScope.filter(isOos).length;
      return {
        accuracy: inOk / inScope.length,
        oosRecall: oosHit / outScope.length,
        oosPrecision: oosHit + oosFalse === 0 ? 1 : oosHit / (oosHit + oosFalse),
        joint: (inOk + oosHit) / (inScope.length + outScope.length), // oos as a 151st class
      };
    };
    // The threshold is chosen on validation data (the paper's oos-threshold setting): the one that
    // maximises accuracy with oos counted as one more class.
    let best = { th: 0, joint: -1 };
    for (let th = 0; th <= 0.99; th += 0.01) {
      const j = at(th).joint;
      if (j > best.joint) best = { th, joint: j };
    }
    const chosen = at(best.th);
    const def = at(0.5);
    Object.assign(row, {
      threshold: Math.round(best.th * 100) / 100,
      accuracyAtThreshold: pct(chosen.accuracy),
      oosRecall: pct(chosen.oosRecall),
      oosPrecision: pct(chosen.oosPrecision),
      atDefault: { accuracy: pct(def.accuracy), oosRecall: pct(def.oosRecall), oosPrecision: pct(def.oosPrecision) },
    });
  }
  return row;
}

/** 20 intents spread over CLINC150's domains (every 7th). */
function tenantLabels(train: Example[]): Set<string> {
  return new Set([...new Set(train.map(([, l]) => l))].filter((_, i) => i % 7 === 0).slice(0, 20));
}

function typicalTenant(clinc: Example[]): { trainMs: number; p99ms: number } {
  // 20 intents x 20 phrases, the size of a typical tenant: the cost of lazy training.
  const intents = toIntents(perLabel(clinc, 20, SEED)).slice(0, 20);
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    trainClassifier(intents, options, vectors);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { trainMs: Math.round(quantile(times, 0.5) * 10) / 10, p99ms: Math.round(quantile(times, 0.99) * 10) / 10 };
}

const clinc = loadClinc150();
const [bankTrain, bankVal] = stratifiedSplit(loadBanking77(), 0.2, SEED);
// A tenant-sized intent set (no oos intent: only the confidence can turn off-topic messages away),
// to see that one threshold serves 20 intents as it serves 150.
const tenantTrain = perLabel(clinc.train, 20, SEED).filter(([, l]) => tenantLabels(clinc.train).has(l));
// The sentence encoder's vectors (test/bench/vectors/cache.ts; ENCODER=0 measures without, ENCODER=1 only with).
const encoderMode = process.env.ENCODER ?? 'both';
const log = (msg: string) => process.stderr.write(`[bench:nlu] ${msg}\n`);
const allTexts = [...clinc.train, ...clinc.oos_train, ...clinc.val, ...clinc.oos_val, ...bankTrain, ...bankVal].map(
  ([t]) => t,
);
const names = toIntents([...clinc.train, ...clinc.oos_train, ...bankTrain]).flatMap((i) =>
  intentTextsToEmbed({ name: i.name, trainingPhrases: [] }),
);
const encoded = encoderMode === '0' ? undefined : await cachedVectors([...allTexts, ...names], log);
const sets: Array<[string, Example[], Example[], Example[]?]> = [
  ['CLINC150 (val + oos_val)', [...clinc.train, ...clinc.oos_train], clinc.val, clinc.oos_val],
  [
    'CLINC150 20 intents x 20',
    tenantTrain,
    clinc.val.filter(([, l]) => tenantLabels(clinc.train).has(l)),
    clinc.oos_val,
  ],
  ['BANKING77 (20% carved val)', bankTrain, bankVal],
  ['BANKING77 10/intent', perLabel(bankTrain, 10, SEED), bankVal],
];
const only = process.env.SETS ? new Set(process.env.SETS.split(',').map(Number)) : null;
const rows: Row[] = sets
  .filter((_, i) => !only || only.has(i))
  .flatMap(([name, train, val, oos]) => [
    ...(encoderMode === '1' ? [] : [evaluate(name, train, val, oos)]),
    ...(encoded ? [evaluate(name, train, val, oos, encoded)] : []),
  ]);
const tenant = typicalTenant(clinc.train);

console.table(
  rows.map((r) => ({
    dataset: r.dataset,
    encoder: r.encoder ? 'yes' : 'no',
    'acc %': r.accuracy,
    'macro-F1 %': r.macroF1,
    th: r.threshold ?? '',
    'acc@th %': r.accuracyAtThreshold ?? '',
    'oos R %': r.oosRecall ?? '',
    'oos P %': r.oosPrecision ?? '',
    'acc/R/P @0.5': r.atDefault ? `${r.atDefault.accuracy}/${r.atDefault.oosRecall}/${r.atDefault.oosPrecision}` : '',
    'train ms': r.trainMs,
    'model KB': Math.round(r.modelBytes / 1024),
    'mem MB': r.modelMB,
    'p50 ms': r.p50ms,
    'p99 ms': r.p99ms,
  })),
);
console.log(`typical tenant (20 intents x 20 phrases): train median ${tenant.trainMs} ms, p99 ${tenant.p99ms} ms`);

const outDir = resolve(repoRoot, 'bench-results');
mkdirSync(outDir, { recursive: true });
writeFileSync(
  resolve(outDir, 'nlu.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, options, rows, typicalTenant: tenant }, null, 2)}\n`,
);
console.log(`wrote ${resolve(outDir, 'nlu.json')}`);

// The figures through the answer policy at the default thresholds (right, fallback, at
// threshold 0, calibration error), without and with the encoder as ENCODER says; NLU_POLICY=0 skips them.
if (process.env.NLU_POLICY !== '0') await targetTable();
