import { intentsRepo, type Intent } from '#shared/data/intents.ts';
import { trainClassifier, type Classifier, type Ranked } from '#shared/nlu/classifier.ts';
import { extractEntities, fillTemplate } from '#shared/nlu/entities.ts';
import { TenantModelCache } from '#shared/nlu/cache.ts';
import { NotFound } from '#shared/core/errors.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { tenantSettings } from './tenant-config.ts';

export interface AssistantModel { version: number; classifier: Classifier; byName: Map<string, Intent> }

// One trained model per tenant in the warm container, keyed by the tenant's intents version:
// every intent write bumps the version, so the next message retrains and an unchanged tenant never does.
const models = new TenantModelCache<AssistantModel>();

export function modelFor(tenantId: string, version: number): Promise<AssistantModel> {
  return models.get(tenantId, version, async () => {
    const enabled = (await intentsRepo.list(tenantId)).filter((i) => i.enabled);
    return { version, classifier: trainClassifier(enabled), byName: new Map(enabled.map((i) => [i.name, i])) };
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

/** What the next chat message would get for `text`, stored and counted nowhere. */
export async function parseMessage(tenantId: string, text: string) {
  const tenant = await tenantsRepo.get(tenantId, true);
  if (!tenant) throw new NotFound('tenant');
  const settings = tenantSettings(tenant.config ?? {});
  const nlu = understand(await modelFor(tenant.id, tenant.intentsVersion), text, settings.confidenceThreshold, settings.fallbackMessage);
  return {
    intentDetected: nlu.intent?.name ?? 'fallback', confidence: nlu.confidence, entitiesExtracted: nlu.entities, intentRanking: nlu.ranking,
  };
}
