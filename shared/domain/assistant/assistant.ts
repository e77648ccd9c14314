import { NotFound } from '#shared/core/errors.ts';
import { KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';
import { clock } from '#shared/core/clock.ts';
import type { Intent } from '#shared/data/intents.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import type { PendingIntent } from '#shared/data/conversations.ts';
import { examplesRepo } from '#shared/data/examples.ts';
import {
  answer,
  candidatesFor,
  clausesToEmbed,
  continuePending,
  intentTextsToEmbed,
  messageToRead,
  noneTextsToEmbed,
  trainModel as trainNluModel,
  type AssistantModel,
  type KnowledgeAnswer,
  type ServiceRules,
  type TextVectors,
  type Understanding,
} from '#shared/nlu/index.ts';
import { knowledgeIndexOf, knowledgeReply } from '#shared/domain/knowledge/knowledge.ts';
import { tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { messageVector as embedMessage, modelVersion, storedVectorsOf, textVectors } from '#shared/domain/vectors.ts';
import { applyNone } from './none.ts';
import { settingsValues, withSettings } from './placeholders.ts';
import { reviewedIntents } from '#shared/domain/starter/review.ts';
import { isSmallTalk, withEverydayPhrases } from './everyday.ts';
import { namedForPerson, namesPerson } from '#shared/domain/small-talk.ts';

// A message's answer as the service gives it: the tenant's model and knowledge index loaded and
// cached here, read by the NLU (shared/nlu/answer/), then the team's none examples and a pending
// question for an entity applied.

// A clause worth a vector of its own asks for a person in a few words ("I need to talk to someone");
// read up to 16 word pieces, it costs the model about half a message's call.
const CLAUSE_TOKENS = 16;

// One trained model per tenant in the warm container, keyed by the tenant's intents version and
// vectors version: every intent write bumps the first, every indexing pass the second, so the next
// message retrains and an unchanged tenant never does.
const models = new TenantModelCache<AssistantModel<Intent>>();

/**
 * What the service decides about its intents, kept with the model (shared/nlu/answer/model.ts):
 * small talk learns the starter set's everyday phrases, starter content gives way to the team's
 * articles, an intent's reply takes its placeholders from the settings.
 */
const rules: ServiceRules<Intent> = {
  training: withEverydayPhrases,
  yieldsToArticles,
  honoured: asksForPerson,
  mayAskAlone: namesPerson,
  withValues: withSettings,
  articleReply: knowledgeReply,
};

/** A plain hand-over: it asks for nothing before a person takes over. */
function plainHandover(i: Intent): boolean {
  return i.action === 'escalate' && !i.entities.some((e) => e.required);
}

/**
 * Asking for a person: a plain hand-over named for it (human_agent, talk_to_agent, ...; a complaint
 * hands over too, but is not this request). Always honoured, even beside a problem an article answers.
 */
function asksForPerson(i: Intent): boolean {
  return plainHandover(i) && namedForPerson(i.name);
}

/**
 * Starter content gives way to the team's articles, except small talk, which states nothing an
 * article could contradict, and a plain hand-over in a message that names a person: asking for one
 * is always honoured. A hand-over ranked first for a message that names nobody ("can I pay in
 * instalments", ranked first by its phrases' "can I") is the classifier's guess, and the team's
 * article that answers comes first.
 */
function yieldsToArticles(i: Intent, text: string): boolean {
  return i.starter === true && !isSmallTalk(i.name) && !(plainHandover(i) && namesPerson(text));
}

/** The tenant's model of its enabled intents, with the service's rules (`vectors`: see trainNluModel). */
export function trainModel(
  version: number | string,
  enabled: Intent[],
  none: string[] = [],
  vectors?: TextVectors,
): AssistantModel<Intent> {
  return trainNluModel(version, enabled, rules, none, vectors);
}

export function modelFor(
  tenant: Pick<Tenant, 'id' | 'intentsVersion' | 'vectorsVersion'>,
): Promise<AssistantModel<Intent>> {
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

export interface Decision {
  nlu: Understanding<Intent>;
  knowledge: KnowledgeAnswer | null;
  settings: ReturnType<typeof tenantSettings>;
  /** The message's sentence vector as read (absent: read by its words alone). */
  vector?: Float32Array;
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
  pending: PendingIntent | null = null,
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
  // A clause that may ask for a person is read in meaning too (most messages have none).
  const clauseVectors = new Map<string, Float32Array>();
  if (vector)
    for (const clause of clausesToEmbed(model, text)) {
      const v = await embedMessage(tenant, clause, CLAUSE_TOKENS);
      if (v) clauseVectors.set(clause, v);
    }
  const decision = applyNone(
    model.none,
    text,
    {
      ...answer(model, index, text, thresholds, settings.fallbackMessage, vector, values, clauseVectors),
      settings,
    },
    vector,
  );
  const given = pending ? continuePending(model, pending, text, values) : null;
  const decided = vector ? { ...decision, vector } : decision;
  // The customer answered the question: certain, whatever the message alone would classify as.
  return given ? { ...decided, nlu: { ...decided.nlu, ...given, confidence: 1 }, knowledge: null } : decided;
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
