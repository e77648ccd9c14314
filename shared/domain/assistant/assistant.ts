import type { Intent } from '#shared/data/intents.ts';
import { trainClassifier, type Classifier, type Ranked } from '#shared/nlu/intents/classifier.ts';
import { nameWords } from '#shared/nlu/intents/features.ts';
import { extractEntities, fillTemplate, missingEntities, promptFor, slotValue } from '#shared/nlu/intents/entities.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';
import { buildKnowledgeIndex, type KnowledgeHit, type KnowledgeIndex } from '#shared/nlu/knowledge/retrieval.ts';
import {
  articleProbability,
  choose,
  intentProbability,
  type ArticleEvidence,
  type IntentEvidence,
} from '#shared/nlu/policy/answer-policy.ts';
import { NotFound } from '#shared/core/errors.ts';
import { KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import type { PendingIntent } from '#shared/data/conversations.ts';
import { knowledgeIndexOf, knowledgeReply, type KnowledgeAnswer } from '#shared/domain/knowledge/knowledge.ts';
import { tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { examplesRepo } from '#shared/data/examples.ts';
import { buildNoneIndex, type NoneIndex } from '#shared/nlu/intents/none-examples.ts';
import { phraseSpelling, type PhraseSpelling } from '#shared/nlu/knowledge/phrase-spelling.ts';
import { wordVectors } from '#shared/nlu/encoder/glove-file.ts';
import { unstretch } from '#shared/nlu/intents/stretched.ts';
import type { TextVectors } from '#shared/nlu/encoder/vector-math.ts';
import { intentMeaning, type IntentMeaning } from '#shared/nlu/intents/phrase-meaning.ts';
import { messageVector as embedMessage, modelVersion, storedVectorsOf, textVectors } from '#shared/domain/vectors.ts';
import { intentTextsToEmbed, noneTextsToEmbed } from '#shared/nlu/policy/to-embed.ts';
import { messageToRead } from '#shared/nlu/policy/message-text.ts';
import { coveredText, offTopicWord, type CoveredText } from '#shared/nlu/policy/answerability.ts';
import { applyNone } from './none.ts';
import { settingsValues, withSettings } from './placeholders.ts';
import { reviewedIntents } from './starter-review.ts';
import { isSmallTalk, withEverydayPhrases } from './everyday.ts';
import { clock } from '#shared/core/clock.ts';

/**
 * A tenant's trained intents: the classifier, and the intents' phrases as a lexical index that
 * tells how much of a message an intent's own phrases say and by their spelling (see
 * shared/nlu/policy/answer-policy.ts), and the team's `none` examples (see shared/nlu/intents/none-examples.ts).
 */
export interface AssistantModel {
  version: number | string;
  classifier: Classifier;
  phrases: KnowledgeIndex;
  spelling: PhraseSpelling;
  byName: Map<string, Intent>;
  none: NoneIndex;
  /** The sentence vectors of each intent's phrases and name that have one (see intentMeaning). */
  meaning: IntentMeaning;
}

// One trained model per tenant in the warm container, keyed by the tenant's intents version and
// vectors version: every intent write bumps the first, every indexing pass the second, so the next
// message retrains and an unchanged tenant never does.
const models = new TenantModelCache<AssistantModel>();

/**
 * `vectors`: the sentence vectors of the intents' texts and the none examples (see
 * shared/nlu/policy/to-embed.ts `intentTextsToEmbed`, `noneTextsToEmbed`); texts without one are
 * matched by their words alone.
 */
export function trainModel(
  version: number | string,
  enabled: Intent[],
  none: string[] = [],
  vectors?: TextVectors,
): AssistantModel {
  const meaning = intentMeaning(enabled, vectors);
  return {
    version,
    classifier: trainClassifier(withEverydayPhrases(enabled), {}, wordVectors(), none, vectors),
    phrases: intentPhraseIndex(enabled),
    spelling: phraseSpelling(new Map(enabled.map((i) => [i.name, i.trainingPhrases]))),
    byName: new Map(enabled.map((i) => [i.name, i])),
    none: buildNoneIndex(none, enabled, {}, vectors, meaning),
    meaning,
  };
}

/** Each intent as an "article" of its name and phrases, for the share of a message it covers. */
export function intentPhraseIndex(intents: Array<Pick<Intent, 'name' | 'trainingPhrases'>>): KnowledgeIndex {
  return buildKnowledgeIndex(
    intents.map((i) => ({
      id: i.name,
      title: nameWords(i.name),
      url: null,
      tags: [],
      questions: i.trainingPhrases,
      passages: [],
    })),
    { weights: { synonymSpan: 0 } },
  );
}

export function modelFor(tenant: Pick<Tenant, 'id' | 'intentsVersion' | 'vectorsVersion'>): Promise<AssistantModel> {
  const version = modelVersion(tenant.intentsVersion, tenant);
  return models.get(tenant.id, version, async () => {
    const [intents, none, stored] = await Promise.all([
      reviewedIntents(tenant.id),
      examplesRepo.noneMessages(tenant.id),
      storedVectorsOf(tenant),
    ]);
    const enabled = intents.filter((i) => i.enabled);
    return trainModel(
      version,
      enabled,
      none,
      textVectors(stored, [...enabled.flatMap(intentTextsToEmbed), ...noneTextsToEmbed(none)]),
    );
  });
}

/** Every candidate with the evidence behind it, best first by kind. */
export interface Evidence {
  intents: Array<{ ranked: Ranked; evidence: IntentEvidence }>;
  articles: Array<{ hit: KnowledgeHit; evidence: ArticleEvidence }>;
}

/**
 * The raw evidence of the best `n.intents` intents and (with an index) the best `n.articles`
 * articles (3 each, at most 10 articles). `messageVector`: the message's sentence vector (absent:
 * words only).
 */
export function evidenceFor(
  model: AssistantModel,
  index: KnowledgeIndex | null,
  message: string,
  n = { intents: 3, articles: 3 },
  messageVector?: Float32Array,
): Evidence {
  // "byee", "hiii": a stretched word that no vocabulary knows is read as the word it stretches.
  const vocabulary = wordVectors().index;
  const text = unstretch(message, (w) => vocabulary.has(w) || model.phrases.knows(w) || (index?.knows(w) ?? false));
  const ranking = model.classifier.classify(text, n.intents + 1, messageVector);
  const lexical = new Map(model.phrases.explain(text, 10).map((e) => [e.articleId, e.features]));
  // The encoder's closeness of the message to each candidate's closest phrase (null: no vectors).
  const close = ranking.map((r) => (messageVector ? model.meaning.closeness(messageVector, r.intent) : null));
  const inScope = ranking.slice(0, 3).reduce((s, r) => s + r.confidence, 0);
  const intents = ranking.slice(0, n.intents).map((ranked, k) => {
    const f = lexical.get(ranked.intent);
    const meaning = close[k];
    const others = close.filter((c, j) => j !== k && c !== null) as number[];
    return {
      ranked,
      evidence: {
        confidence: ranked.confidence,
        margin: ranked.confidence - (ranking[k + 1]?.confidence ?? 0),
        cover: f?.key ?? 0,
        similarity: f?.similarity ?? 0,
        spelling: model.spelling.nearest(text, ranked.intent),
        candidates: model.byName.size,
        inScope,
        ...(meaning == null ? {} : { meaning, meaningMargin: meaning - Math.max(-1, ...others) }),
      },
    };
  });
  const hits = index
    ? index.search(text, { limit: Math.min(10, n.articles + 1), ...(messageVector ? { vector: messageVector } : {}) })
    : [];
  const articles = hits.slice(0, n.articles).map((hit, k) => ({
    hit,
    evidence: {
      confidence: hit.confidence,
      margin: hit.confidence - (hits[k + 1]?.confidence ?? 0),
      features: hit.features,
      candidates: index!.size,
    },
  }));
  return { intents, articles };
}

export interface Understanding {
  intent: Intent | null;
  confidence: number;
  ranking: Ranked[];
  entities: Record<string, string>;
  reply: string;
  /** The intent waits for an entity the reply asks for (kept on the conversation for the next message); null when it answered. */
  pending: Pending | null;
}

/** An intent that asked for an entity it cannot answer without, with what it has already. */
export type Pending = PendingIntent;

/** The intent's answer with `entities`, or, while one it cannot answer without is missing, the question for it. */
export function respond(
  intent: Intent,
  entities: Record<string, string>,
): Pick<Understanding, 'intent' | 'entities' | 'reply' | 'pending'> {
  const missing = missingEntities(intent, entities)[0];
  if (!missing) return { intent, entities, reply: fillTemplate(intent.response, entities), pending: null };
  return {
    intent,
    entities,
    reply: promptFor(missing),
    pending: { intent: intent.name, entities, asked: missing.name },
  };
}

/**
 * The answer to a message that follows a question for an entity: when the message gives it, the
 * waiting intent answers (or asks for the next one it lacks); else null, and the message is read
 * as any other (the customer moved on, and the question is dropped).
 */
export function continuePending(
  model: AssistantModel,
  pending: Pending,
  text: string,
  values: Record<string, string> = {},
): Pick<Understanding, 'intent' | 'entities' | 'reply' | 'pending'> | null {
  const stored = model.byName.get(pending.intent);
  const intent = stored ? withSettings(stored, values) : null;
  const spec = intent?.entities.find((e) => e.name === pending.asked);
  const value = spec ? slotValue(text, spec) : null;
  if (!intent || value === null) return null;
  return respond(intent, { ...pending.entities, ...extractEntities(text, intent.entities), [pending.asked]: value });
}

export interface Thresholds {
  intent: number;
  article: number;
}

/**
 * The answer policy: every message is matched against the intents and (unless `index` is null)
 * the articles; each candidate gets its calibrated probability of being right, and the better one
 * that reaches its kind's threshold answers, else the fallback. The team's content comes first:
 * where an article reaches its threshold, an intent the team did not write or edit (starter
 * content) does not answer instead. An intent whose settings placeholder has no value in `values`
 * falls back. Pure apart from the model.
 */
export function answer(
  model: AssistantModel,
  index: KnowledgeIndex | null,
  text: string,
  thresholds: Thresholds,
  fallbackMessage: string,
  messageVector?: Float32Array,
  values: Record<string, string> = {},
) {
  const { ranking, hits } = calibrated(evidenceFor(model, index, text, undefined, messageVector));
  // The tenant's taught "none" examples may overrule the choice afterwards (decide, applyNone).
  let choice = choose(ranking[0]?.confidence ?? null, hits[0]?.confidence ?? null, thresholds);
  const top = ranking[0];
  const articleAnswers = hits[0] !== undefined && hits[0].confidence >= thresholds.article;
  if (choice === 'intent' && articleAnswers && yieldsToArticles(model.byName.get(top!.intent)!)) choice = 'article';
  // Starter content answers only what it was written for: "is parking free" is not an hours question.
  if (choice === 'intent' && offTopicStarter(model.byName.get(top!.intent)!, text))
    choice = choose(null, hits[0]?.confidence ?? null, thresholds);

  let nlu: Understanding = {
    intent: null,
    confidence: top?.confidence ?? 0,
    ranking,
    entities: {},
    reply: fallbackMessage,
    pending: null,
  };
  let knowledge: KnowledgeAnswer | null = null;
  const intent = choice === 'intent' ? withSettings(model.byName.get(top!.intent)!, values) : null;
  if (intent) {
    nlu = { ...nlu, ...respond(intent, extractEntities(text, intent.entities)) };
  } else if (choice === 'article') {
    const best = hits[0]!;
    knowledge = {
      confidence: best.confidence,
      articleId: best.articleId,
      title: best.title,
      reply: knowledgeReply(best),
      ...(best.format ? { format: best.format } : {}),
      // Only articles that reach the threshold too: a link to an article that does not answer helps no one.
      sources: hits
        .filter((h) => h.confidence >= thresholds.article)
        .map((h) => ({ articleId: h.articleId, title: h.title, url: h.url })),
    };
  }
  return { nlu, knowledge };
}

/**
 * Starter content gives way to the team's articles, except small talk and a plain hand-over: they
 * state nothing an article could contradict, and asking for a person is always honoured.
 */
const yieldsToArticles = (i: Intent) =>
  i.starter === true && !isSmallTalk(i.name) && !(i.action === 'escalate' && !i.entities.some((e) => e.required));

const starterTexts = new WeakMap<Intent, CoveredText>();
/**
 * A starter intent that gives way to articles and answers at once (the hours), asked about a subject
 * its phrases never speak of (see shared/nlu/policy/answerability.ts). One that first asks for what
 * it needs (the order number) is left alone: genuine order questions name the product ("ordered a
 * pump online last wk, still not here"), and its question states nothing about the business.
 */
function offTopicStarter(intent: Intent, text: string): boolean {
  if (!yieldsToArticles(intent) || intent.entities.some((e) => e.required)) return false;
  const vectors = wordVectors();
  let covered = starterTexts.get(intent);
  if (!covered) {
    covered = coveredText([nameWords(intent.name), ...intent.trainingPhrases].join('\n'), vectors);
    starterTexts.set(intent, covered);
  }
  return offTopicWord(text, covered, vectors) !== null;
}

/** The calibrated ranking of each kind; a lower-ranked candidate never shows more confidence than the one above it. */
function calibrated({ intents, articles }: Evidence) {
  let above = 1;
  const ranking: Ranked[] = intents.map(({ ranked, evidence }) => {
    above = Math.min(above, intentProbability(evidence));
    return { intent: ranked.intent, confidence: above };
  });
  above = 1;
  const hits = articles.map(({ hit, evidence }) => {
    above = Math.min(above, articleProbability(evidence));
    return { ...hit, confidence: above };
  });
  return { ranking, hits };
}

/**
 * Every enabled intent and the 10 best articles, in the assistant's own order for `text`, each with
 * the calibrated confidence the answer policy weighs: what should have answered a message is
 * offered in the order the assistant would have chosen it.
 */
export function candidatesFor(
  model: AssistantModel,
  index: KnowledgeIndex | null,
  text: string,
  messageVector?: Float32Array,
) {
  const { ranking, hits } = calibrated(
    evidenceFor(model, index, text, { intents: model.byName.size, articles: 10 }, messageVector),
  );
  return {
    intents: ranking.flatMap((r) => {
      const intent = model.byName.get(r.intent);
      return intent ? [{ id: intent.id, name: r.intent, confidence: r.confidence }] : [];
    }),
    articles: hits.map((h) => ({ articleId: h.articleId, title: h.title, confidence: h.confidence })),
  };
}

export interface Decision {
  nlu: Understanding;
  knowledge: KnowledgeAnswer | null;
  settings: ReturnType<typeof tenantSettings>;
}

/**
 * The tenant's answer to `message`, read as messageToRead gives it (normalised and cut to a fixed
 * length). `searchKnowledge` false leaves the articles out (nobody is going to be answered, so no
 * article may count as having answered). `pending`: the intent the previous answer asked an entity
 * for, which this message may give. `messageVector`: the sentence vector of what is read (absent:
 * words only).
 */
export async function decide(
  tenant: Tenant,
  message: string,
  searchKnowledge = true,
  pending: Pending | null = null,
  messageVector?: Float32Array,
): Promise<Decision> {
  const text = messageToRead(message);
  const settings = tenantSettings(tenant.config ?? {});
  // The message is embedded once (unless the caller did), only for a tenant whose content has vectors.
  const [model, index, vector] = await Promise.all([
    modelFor(tenant),
    searchKnowledge && settings.knowledgeEnabled ? knowledgeIndexOf(tenant) : null,
    messageVector ?? embedMessage(tenant, text),
  ]);
  const thresholds = { intent: settings.confidenceThreshold, article: settings.knowledgeThreshold };
  const values = settingsValues(tenant, clock.date());
  const decision = applyNone(
    model.none,
    text,
    { ...answer(model, index, text, thresholds, settings.fallbackMessage, vector, values), settings },
    vector,
  );
  const given = pending ? continuePending(model, pending, text, values) : null;
  // The customer answered the question: certain, whatever the message alone would classify as.
  return given ? { ...decision, nlu: { ...decision.nlu, ...given, confidence: 1 }, knowledge: null } : decision;
}

/**
 * What the next chat message would get for `text`, stored and counted nowhere. The reply of an
 * escalating intent lacks the ticket number that only a real escalation makes.
 */
export async function parseMessage(tenantId: string, message: string) {
  const tenant = await tenantsRepo.get(tenantId, true);
  if (!tenant) throw new NotFound('tenant');
  const text = messageToRead(message);
  // Embedded once: the answer and the candidates are ranked from the same vector.
  const vector = await embedMessage(tenant, text);
  const { nlu, knowledge, settings } = await decide(tenant, text, true, null, vector);
  const [model, index] = await Promise.all([
    modelFor(tenant),
    settings.knowledgeEnabled ? knowledgeIndexOf(tenant) : null,
  ]);
  const candidates = candidatesFor(model, index, text, vector);
  if (knowledge) {
    return {
      intentDetected: KNOWLEDGE_INTENT,
      confidence: knowledge.confidence,
      entitiesExtracted: {},
      intentRanking: nlu.ranking,
      reply: knowledge.reply,
      sources: knowledge.sources,
      candidates,
    };
  }
  return {
    intentDetected: nlu.intent?.name ?? 'fallback',
    confidence: nlu.confidence,
    entitiesExtracted: nlu.entities,
    intentRanking: nlu.ranking,
    reply: nlu.reply,
    sources: [],
    candidates,
  };
}
