import { intentsRepo, type Intent } from '#shared/data/intents.ts';
import { trainClassifier, type Classifier, type Ranked } from '#shared/nlu/classifier.ts';
import { extractEntities, fillTemplate } from '#shared/nlu/entities.ts';
import { TenantModelCache } from '#shared/nlu/cache.ts';
import { NotFound } from '#shared/core/errors.ts';
import { KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { answerFrom, knowledgeIndexOf, type KnowledgeAnswer } from '#shared/domain/knowledge/knowledge.ts';
import { tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { examplesRepo } from '#shared/data/examples.ts';
import { buildNoneIndex, type NoneIndex } from '#shared/nlu/none.ts';
import { applyNone } from './none.ts';

export interface AssistantModel { version: number; classifier: Classifier; byName: Map<string, Intent>; none: NoneIndex }

// One trained model per tenant in the warm container, keyed by the tenant's intents version:
// every intent write bumps the version, so the next message retrains and an unchanged tenant never does.
const models = new TenantModelCache<AssistantModel>();

export function modelFor(tenantId: string, version: number): Promise<AssistantModel> {
  return models.get(tenantId, version, async () => {
    const [intents, none] = await Promise.all([intentsRepo.list(tenantId), examplesRepo.noneMessages(tenantId)]);
    const enabled = intents.filter((i) => i.enabled);
    return { version, classifier: trainClassifier(enabled), byName: new Map(enabled.map((i) => [i.name, i])), none: buildNoneIndex(none, enabled) };
  });
}

export interface Understanding {
  intent: Intent | null;
  confidence: number;
  ranking: Ranked[];
  entities: Record<string, string>;
  reply: string;
}

/** Classifies a message; below the threshold it is the fallback. Pure apart from the model. */
export function understand(model: AssistantModel, text: string, threshold: number, fallbackMessage: string): Understanding {
  const ranking = model.classifier.classify(text, 3);
  const top = ranking[0];
  const confidence = top?.confidence ?? 0;
  const intent = top && confidence >= threshold ? model.byName.get(top.intent) ?? null : null;
  if (!intent) return { intent: null, confidence, ranking, entities: {}, reply: fallbackMessage };
  const entities = extractEntities(text, intent.entities);
  return { intent, confidence, ranking, entities, reply: fillTemplate(intent.response, entities) };
}

export interface Decision { nlu: Understanding; knowledge: KnowledgeAnswer | null; settings: ReturnType<typeof tenantSettings> }

/**
 * The intents first; when none reaches the threshold (and the tenant has not turned it off), the
 * published articles. `searchKnowledge` false skips the articles (nobody is going to be answered).
 */
export async function decide(tenant: Tenant, text: string, searchKnowledge = true): Promise<Decision> {
  const settings = tenantSettings(tenant.config ?? {});
  const model = await modelFor(tenant.id, tenant.intentsVersion);
  const nlu = understand(model, text, settings.confidenceThreshold, settings.fallbackMessage);
  const knowledge = !nlu.intent && searchKnowledge && settings.knowledgeEnabled
    ? answerFrom(await knowledgeIndexOf(tenant), text, settings.knowledgeThreshold)
    : null;
  return applyNone(model.none, text, { nlu, knowledge, settings });
}

/**
 * What the next chat message would get for `text`, stored and counted nowhere. The reply of an
 * escalating intent lacks the ticket number that only a real escalation makes.
 */
export async function parseMessage(tenantId: string, text: string) {
  const tenant = await tenantsRepo.get(tenantId, true);
  if (!tenant) throw new NotFound('tenant');
  const { nlu, knowledge } = await decide(tenant, text);
  if (knowledge) {
    return {
      intentDetected: KNOWLEDGE_INTENT, confidence: knowledge.confidence, entitiesExtracted: {}, intentRanking: nlu.ranking,
      reply: knowledge.reply, sources: knowledge.sources,
    };
  }
  return {
    intentDetected: nlu.intent?.name ?? 'fallback', confidence: nlu.confidence, entitiesExtracted: nlu.entities, intentRanking: nlu.ranking,
    reply: nlu.reply, sources: [],
  };
}
