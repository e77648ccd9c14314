// A scenario's tenant built in process, the way the chat path builds it (the same classifier,
// phrase index and knowledge index), for the calibration fit, which needs the raw evidence.
import { createHash } from 'node:crypto';
import type { Intent } from '#shared/data/intents.ts';
import { trainModel } from '#shared/domain/assistant/assistant.ts';
import {
  evidenceFor,
  type AssistantModel,
  type Evidence,
  buildKnowledgeIndex,
  type KnowledgeIndex,
  prepareArticle,
  type StoredArticle,
  textsToEmbed,
  type TextVectors,
  wordVectors,
} from '#shared/nlu/index.ts';
import type { Scenario, ScenarioMessage } from './data.ts';
import { cachedVectors } from '../vectors/cache.ts';

// NO_VECTORS=1: the knowledge index without word vectors (experiments).
const VECTORS = process.env.NO_VECTORS === '1' ? null : wordVectors();

export interface Built {
  model: AssistantModel;
  index: KnowledgeIndex;
}

/** Whether the answer benchmarks use the sentence encoder: ENCODER=0 without, ENCODER=1 only with, else both where they compare. */
export const encoderMode = process.env.ENCODER ?? 'both';

const preparedArticles = (s: Scenario) => s.articles.map((a) => prepareArticle({ ...a, id: a.title }));

/** The sentence vectors of the scenarios' content and messages, from the benchmark's cache. */
export function scenarioVectors(scenarios: Scenario[]): Promise<TextVectors> {
  const log = (msg: string) => process.stderr.write(`[vectors] ${msg}\n`);
  return cachedVectors(
    scenarios.flatMap((s) => [
      ...textsToEmbed({ intents: s.intents, articles: preparedArticles(s) }),
      ...s.messages.map((m) => m.text),
    ]),
    log,
  );
}

// The tuning and lockbox tenants of one data set share their intents, built one after the other:
// the last model is kept and trained once (only the last: a 150-intent model is large).
let last: { key: string; model: AssistantModel } | undefined;
const modelOf = (key: string, make: () => AssistantModel) => {
  if (last?.key !== key) last = { key, model: make() };
  return last.model;
};

/** `encoded`: the sentence vectors of the scenario's texts (absent: words only, as before vectors are indexed). */
export function buildScenario(s: Scenario, encoded?: TextVectors): Built {
  const intents = s.intents.map(
    (i, k) =>
      ({
        id: `i${k}`,
        name: i.name,
        description: '',
        trainingPhrases: i.trainingPhrases,
        response: i.response,
        entities: i.entities ?? [],
        action: i.action ?? 'reply',
        ...(i.starter ? { starter: true } : {}),
        enabled: true,
        createdAt: '',
        updatedAt: '',
      }) as Intent,
  );
  // Articles are known by their title here (the fixtures' messages name the title).
  const stored = JSON.parse(JSON.stringify(preparedArticles(s))) as StoredArticle[];
  // KB_WEIGHTS='{"unseen":0.8}' overrides the knowledge index's weights for experiments.
  return {
    model: modelOf(`${encoded ? 'e' : 'w'}:${createHash('sha1').update(JSON.stringify(s.intents)).digest('hex')}`, () =>
      trainModel(1, intents, [], encoded),
    ),
    index: buildKnowledgeIndex(stored, {
      weights: JSON.parse(process.env.KB_WEIGHTS ?? '{}'),
      wordVectors: VECTORS,
      ...(encoded ? { vectors: encoded } : {}),
    }),
  };
}

export interface Observed {
  message: ScenarioMessage;
  evidence: Evidence;
  intentRight: boolean;
  articleRight: boolean;
}

export function observe(b: Built, messages: ScenarioMessage[], encoded?: TextVectors): Observed[] {
  return messages.map((message) => {
    const evidence = evidenceFor(b.model, b.index, message.text, undefined, encoded?.get(message.text.trim()));
    const e = message.expect;
    return {
      message,
      evidence,
      intentRight: 'intent' in e && evidence.intents[0]?.ranked.intent === e.intent,
      articleRight: 'article' in e && evidence.articles[0]?.hit.articleId === e.article,
    };
  });
}
