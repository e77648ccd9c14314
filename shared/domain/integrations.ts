import { ulid } from 'ulid';
import { config as env } from '#shared/core/config.ts';
import { integrationsRepo, type IntegrationItem } from '#shared/data/integrations.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { Conflict, NotFound, fieldError } from '#shared/core/errors.ts';
import type { IntegrationType } from '#shared/core/vocabulary.ts';
import { maskAll, seal } from './credentials.ts';
import { checkWebhookUrl } from './webhook-url.ts';

export interface IntegrationInput {
  type: IntegrationType; name: string; config: Record<string, unknown>; credentials: Record<string, string>;
}

const view = (i: IntegrationItem) => ({
  id: i.id, type: i.type, name: i.name, status: i.status, config: i.config, credentials: i.masked, createdAt: i.createdAt,
});

function validate(input: IntegrationInput) {
  if (input.type === 'webhook') {
    const why = checkWebhookUrl(input.config.url as string, env.allowLoopbackWebhooks);
    if (why) throw fieldError('config.url', why);
  }
}

// Audited: what changed, with credentials only as the names of the keys that were set (never values).
const summary = (i: Pick<IntegrationItem, 'type' | 'name' | 'config' | 'masked'> | null) =>
  i ? { type: i.type, name: i.name, config: i.config, credentials: Object.keys(i.masked).sort() } : null;
function changes(before: IntegrationItem | null, after: IntegrationItem | null, rotated: boolean) {
  const a = summary(before) as Record<string, unknown> | null;
  const b = summary(after) as Record<string, unknown> | null;
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of ['type', 'name', 'config', 'credentials']) {
    if (JSON.stringify(a?.[k]) !== JSON.stringify(b?.[k]) || (k === 'credentials' && rotated)) out[k] = { from: a?.[k] ?? null, to: b?.[k] ?? null };
  }
  return out;
}

/** Integration ids are `int_` + a ULID; anything else names none (and never reaches a key). */
const ID_SHAPE = /^int_[0-9A-Za-z]{1,64}$/;

async function find(tenantId: string, id: string) {
  if (!ID_SHAPE.test(id)) throw new NotFound('integration');
  const i = await integrationsRepo.get(tenantId, id);
  if (!i) throw new NotFound('integration');
  return i;
}

export async function listIntegrations(tenantId: string) {
  return { items: (await integrationsRepo.list(tenantId)).map(view) };
}

async function build(tenantId: string, id: string, input: IntegrationInput, createdAt: string, now: string): Promise<IntegrationItem> {
  const sealed = await seal(input.credentials, { tenantId, integrationId: id });
  return {
    id, type: input.type, name: input.name, status: 'active', config: input.config,
    sealed, masked: maskAll(input.credentials), createdAt, updatedAt: now,
  };
}

export async function createIntegration(tenantId: string, actor: Actor, input: IntegrationInput) {
  validate(input);
  const now = new Date().toISOString();
  const item = await build(tenantId, `int_${ulid()}`, input, now, now);
  await integrationsRepo.put(tenantId, item, null, {
    action: 'integration.created', actor: actor, target: { type: 'integration', id: item.id }, changes: changes(null, item, true),
  });
  return view(item);
}

export async function replaceIntegration(tenantId: string, actor: Actor, id: string, input: IntegrationInput) {
  validate(input);
  const before = await find(tenantId, id);
  const now = new Date().toISOString();
  const item = await build(tenantId, id, input, before.createdAt, now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString());
  try {
    await integrationsRepo.put(tenantId, item, before, {
      action: 'integration.updated', actor: actor, target: { type: 'integration', id }, changes: changes(before, item, true),
    });
  } catch (e) {
    if (e instanceof TxConditionFailed) {
      if (!(await integrationsRepo.get(tenantId, id))) throw new NotFound('integration');
      throw new Conflict('the integration changed concurrently; try again');
    }
    throw e;
  }
  return view(item);
}

export async function deleteIntegration(tenantId: string, actor: Actor, id: string) {
  const before = await find(tenantId, id);
  try {
    await integrationsRepo.remove(tenantId, before, {
      action: 'integration.deleted', actor: actor, target: { type: 'integration', id }, changes: changes(before, null, false),
    }, new Date().toISOString());
  } catch (e) {
    if (e instanceof TxConditionFailed) throw new NotFound('integration');
    throw e;
  }
}
