// The none veto in meaning, tuned on CLINC150's train split (a fifth asked) with oos_train cut in two: `npx tsx test/bench/teach/none-tune.ts` (NW=1,2: none weights; CONF=1: the confidence gate)
import type { Intent } from '#shared/data/intents.ts';
import { trainModel } from '#shared/domain/assistant/assistant.ts';
import { applyNone } from '#shared/domain/assistant/none.ts';
import {
  answer,
  buildNoneIndex,
  DEFAULT_ARTICLE_THRESHOLD,
  DEFAULT_INTENT_THRESHOLD,
  textsToEmbed,
  trainClassifier,
  wordVectors,
} from '#shared/nlu/index.ts';
import { withEverydayPhrases } from '#shared/domain/assistant/everyday.ts';
import { loadClinc150, toIntents, type Example } from '../nlu/data.ts';
import { cachedVectors } from '../vectors/cache.ts';
const clinc = loadClinc150();
const n = new Map<string, number>();
const tr: Example[] = [];
const asked: Example[] = [];
for (const x of clinc.train) {
  const k = n.get(x[1]) ?? 0;
  n.set(x[1], k + 1);
  (k % 5 === 0 ? asked : tr).push(x);
}
const intents = toIntents(tr).map(
  (i, k) =>
    ({
      id: `i${k}`,
      name: i.name,
      description: '',
      trainingPhrases: i.trainingPhrases,
      response: i.name,
      entities: [],
      action: 'reply',
      enabled: true,
      createdAt: '',
      updatedAt: '',
    }) as Intent,
);
const oos = clinc.oos_train.map(([t]) => t);
const vectors = await cachedVectors([...textsToEmbed({ intents, none: oos }), ...asked.map(([t]) => t)]);
const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
const grid: Array<Record<string, number>> = [
  { minMeaning: 2 },
  { minMeaning: 0.45, meaningMargin: -0.05 },
  { minMeaning: 0.4, meaningMargin: -0.05 },
  { minMeaning: 0.45, meaningMargin: -0.08 },
  { minMeaning: 0.5, meaningMargin: -0.1 },
  { minMeaning: 0.55, meaningMargin: -0.1 },
];
const res = new Map<string, { inR: number; oosR: number; inN: number; oosN: number }>();
for (const fold of [0, 1]) {
  const none = oos.filter((_, i) => i % 2 === fold);
  const msgs: Example[] = [...asked, ...oos.filter((_, i) => i % 2 !== fold).map((t) => [t, 'oos'] as Example)];
  for (const [taught, nw] of [[[], 1], ...(process.env.NW ?? '1').split(',').map((x) => [none, Number(x)])] as Array<
    [string[], number]
  >) {
    const model = { ...trainModel(1, intents, taught, vectors) };
    if (nw !== 1)
      model.classifier = trainClassifier(
        withEverydayPhrases(intents),
        { noneWeight: nw },
        wordVectors(),
        taught,
        vectors,
      );
    const decided = msgs.map(([text, label]) => {
      const v = vectors.get(text.trim());
      return {
        text,
        label,
        v,
        d: { ...answer(model, null, text, th, 'fallback', v), settings: { fallbackMessage: 'fallback' } },
      };
    });
    if (process.env.CONF && taught.length) {
      const lex = buildNoneIndex(taught, intents, { minMeaning: 2 }, vectors);
      for (const mm of [-0.05, -0.08, -0.1, -0.15]) {
        const mean = buildNoneIndex(
          taught,
          intents,
          { minMeaning: 0.45, meaningMargin: mm, minSimilarity: 99 },
          vectors,
        );
        for (const c of [0.7, 0.8, 0.9, 0.95, 1.01]) {
          const key = `conf<${c} margin ${mm}`;
          const r = res.get(key) ?? { inR: 0, oosR: 0, inN: 0, oosN: 0 };
          for (const { text, label, v, d: d0 } of decided) {
            let d = applyNone(lex, text, d0, v);
            if (d.nlu.intent && d0.nlu.confidence < c) d = applyNone(mean, text, d, v);
            if (label === 'oos') {
              r.oosN++;
              r.oosR += d.nlu.intent === null && d.knowledge === null ? 1 : 0;
            } else {
              r.inN++;
              r.inR += d.nlu.intent?.name === label ? 1 : 0;
            }
          }
          res.set(key, r);
        }
      }
      continue;
    }
    for (const g of taught.length ? grid : [{ none: 0 }]) {
      const idx = taught.length ? buildNoneIndex(taught, intents, g, vectors) : model.none;
      const key = `nw ${nw} ${JSON.stringify(g)}`;
      const r = res.get(key) ?? { inR: 0, oosR: 0, inN: 0, oosN: 0 };
      for (const { text, label, v, d: d0 } of decided) {
        const d = applyNone(idx, text, d0, v);
        if (label === 'oos') {
          r.oosN++;
          r.oosR += d.nlu.intent === null && d.knowledge === null ? 1 : 0;
        } else {
          r.inN++;
          r.inR += d.nlu.intent?.name === label ? 1 : 0;
        }
      }
      res.set(key, r);
    }
  }
}
for (const [k, r] of res)
  console.log(
    `${k}: in scope ${((100 * r.inR) / r.inN).toFixed(2)} oos recall ${((100 * r.oosR) / r.oosN).toFixed(1)} (n ${r.inN}/${r.oosN})`,
  );
