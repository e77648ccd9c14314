// CLINC150's oos_train taught as `none`, in process with the sentence encoder's evidence (the API
// path needs the stored vectors): `npx tsx test/bench/teach/none-encoder.ts`. Out-of-scope recall
// (oos_val answered with the fallback) and in-scope accuracy (val answered with the right intent)
// at the default thresholds, before and after, as bench:teach measures them through the API
// (ENCODER=0: words only).
import type { Intent } from '#shared/data/intents.ts';
import { trainModel } from '#shared/domain/assistant/assistant.ts';
import { applyNone } from '#shared/domain/assistant/none.ts';
import { answer, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD, textsToEmbed } from '#shared/nlu/index.ts';
import { loadClinc150, toIntents } from '../nlu/data.ts';
import { cachedVectors } from '../vectors/cache.ts';

const clinc = loadClinc150();
const intents = toIntents(clinc.train).map(
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
const none = clinc.oos_train.map(([t]) => t);
const messages = [...clinc.val, ...clinc.oos_val];
const vectors =
  process.env.ENCODER === '0'
    ? undefined
    : await cachedVectors([...textsToEmbed({ intents, none }), ...messages.map(([t]) => t)]);
const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
for (const taught of [[], none]) {
  const model = trainModel(1, intents, taught, vectors);
  let inRight = 0;
  let oosRight = 0;
  for (const [text, label] of messages) {
    const v = vectors?.get(text.trim());
    const d = applyNone(
      model.none,
      text,
      { ...answer(model, null, text, th, 'fallback', v), settings: { fallbackMessage: 'fallback' } },
      v,
    );
    if (label === 'oos') oosRight += d.nlu.intent === null && d.knowledge === null ? 1 : 0;
    else inRight += d.nlu.intent?.name === label ? 1 : 0;
  }
  const pct = (x: number, n: number) => Math.round((1000 * x) / n) / 10;
  console.log(
    `${vectors ? 'encoder' : 'words only'}, ${taught.length} none examples: in scope ${pct(inRight, clinc.val.length)} %, oos recall ${pct(oosRight, clinc.oos_val.length)} %`,
  );
}
