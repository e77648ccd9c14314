import { ulid } from 'ulid';
import { integrationsRepo, type IntegrationItem } from '#shared/data/integrations.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { Conflict, NotFound, fieldError } from '#shared/core/errors.ts';
import type { IntegrationType } from '#shared/core/vocabulary.ts';
import { maskAll, seal } from './credentials.ts';
import { checkWebhookUrl, isLoopbackUrl, loopbackAllowed } from './webhook-url.ts';
import { actionConfig } from './actions.ts';
import { checkSecret, newSecret } from './webhook-signing.ts';
import { SLACK_WEBHOOK_PREFIX } from './slack.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { clock } from '#shared/core/clock.ts';

export interface IntegrationInput {
  type: IntegrationType;
  name: string;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
  status?: IntegrationItem['status'];
}

const view = (i: IntegrationItem) => ({
  id: i.id,
  type: i.type,
  name: i.name,
  status: i.status,
  config: i.config,
  credentials: i.masked,
  createdAt: i.createdAt,
});

/** The input as stored (an action's config with its timeout filled in), or a 400 on the field at fault. */
function validate(input: IntegrationInput): IntegrationInput {
  if (input.type === 'webhook') {
    const why = checkWebhookUrl(input.config.url as string, loopbackAllowed(input.config.url as string));
    if (why) throw fieldError('config.url', why);
  }
  if (input.type === 'webhook' || input.type === 'action') {
    const bad = input.credentials.secret === undefined ? null : checkSecret(input.credentials.secret);
    if (bad) throw fieldError('credentials.secret', bad);
  }
  if (input.type === 'action') return { ...input, config: actionConfig(input.config) };
  const hook = input.type === 'slack' ? input.credentials.webhookUrl : undefined;
  if (hook !== undefined) {
    // Loopback receivers stand in for Slack in the local runtime's tests; the URL passes the same check as a webhook's.
    const why = checkWebhookUrl(hook, loopbackAllowed(hook));
    if (why) throw fieldError('credentials.webhookUrl', why);
    if (!isLoopbackUrl(new URL(hook)) && new URL(hook).origin !== new URL(SLACK_WEBHOOK_PREFIX).origin) {
      throw fieldError('credentials.webhookUrl', `must be a Slack incoming-webhook URL (${SLACK_WEBHOOK_PREFIX}...)`);
    }
  }
  return input;
}

// Audited: what changed, with credentials only as the names of the keys that were set (never values).
const summary = (i: Pick<IntegrationItem, 'type' | 'name' | 'status' | 'config' | 'masked'> | null) =>
  i
    ? { type: i.type, name: i.name, status: i.status, config: i.config, credentials: Object.keys(i.masked).sort() }
    : null;
function changes(before: IntegrationItem | null, after: IntegrationItem | null, rotated: boolean) {
  const a = summary(before) as Record<string, unknown> | null;
  const b = summary(after) as Record<string, unknown> | null;
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of ['type', 'name', 'status', 'config', 'credentials']) {
    if (JSON.stringify(a?.[k]) !== JSON.stringify(b?.[k]) || (k === 'credentials' && rotated))
      out[k] = { from: a?.[k] ?? null, to: b?.[k] ?? null };
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

/** `kept`: the stored credentials, when a replacement sends none. */
async function build(
  tenantId: string,
  id: string,
  input: IntegrationInput,
  status: IntegrationItem['status'],
  createdAt: string,
  now: string,
  kept?: Pick<IntegrationItem, 'sealed' | 'masked'>,
): Promise<IntegrationItem> {
  const { sealed, masked } = kept ?? {
    sealed: await seal(input.credentials, { tenantId, integrationId: id }),
    masked: maskAll(input.credentials),
  };
  return {
    id,
    type: input.type,
    name: input.name,
    status,
    config: input.config,
    sealed,
    masked,
    createdAt,
    updatedAt: now,
  };
}

const tooMany = () => new Conflict(`a tenant has at most ${LIMITS.integrationsPerTenant} integrations`);

const required = (input: IntegrationInput) =>
  input.type === 'webhook' || input.type === 'action' ? 'secret' : input.type === 'slack' ? 'webhookUrl' : null;

/** A webhook or an action created without a secret gets one, shown in full in this response only. */
export async function createIntegration(tenantId: string, actor: Actor, given: IntegrationInput) {
  if (given.type === 'slack' && !given.credentials.webhookUrl)
    throw fieldError('credentials.webhookUrl', 'is required for Slack (its incoming-webhook URL)');
  const input = validate(given);
  const generated = required(input) === 'secret' && !input.credentials.secret ? newSecret() : null;
  const full = generated ? { ...input, credentials: { ...input.credentials, secret: generated } } : input;
  const now = clock.iso();
  // The list covers tenants older than the tally; the tally in the transaction covers concurrent creations.
  if ((await integrationsRepo.list(tenantId)).length >= LIMITS.integrationsPerTenant) throw tooMany();
  const item = await build(tenantId, `int_${ulid(clock.now())}`, full, input.status ?? 'active', now, now);
  try {
    await integrationsRepo.put(
      tenantId,
      item,
      null,
      {
        action: 'integration.created',
        actor,
        target: { type: 'integration', id: item.id },
        changes: changes(null, item, true),
      },
      LIMITS.integrationsPerTenant,
    );
  } catch (e) {
    if (e instanceof TxConditionFailed && e.failed[2]) throw tooMany();
    throw e;
  }
  const v = view(item);
  return generated ? { ...v, credentials: { ...v.credentials, secret: generated } } : v;
}

/**
 * A full replacement, except that a body without credentials keeps the stored ones (a rename or
 * a re-activation must not rotate a secret) and one without `status` keeps the current status.
 */
export async function replaceIntegration(tenantId: string, actor: Actor, id: string, given: IntegrationInput) {
  // An unknown id is 404 before the body's rules are looked at.
  const before = await find(tenantId, id);
  const input = validate(given);
  const keep = Object.keys(input.credentials).length === 0 && before.type === input.type;
  const need = required(input);
  if (!keep && need && !input.credentials[need])
    throw fieldError(`credentials.${need}`, `is required for a ${input.type} integration`);
  const now = clock.iso();
  const item = await build(
    tenantId,
    id,
    input,
    input.status ?? before.status,
    before.createdAt,
    now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString(),
    keep ? before : undefined,
  );
  try {
    await integrationsRepo.put(tenantId, item, before, {
      action: 'integration.updated',
      actor,
      target: { type: 'integration', id },
      changes: changes(before, item, !keep),
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
    await integrationsRepo.remove(
      tenantId,
      before,
      {
        action: 'integration.deleted',
        actor: actor,
        target: { type: 'integration', id },
        changes: changes(before, null, false),
      },
      clock.iso(),
    );
  } catch (e) {
    if (e instanceof TxConditionFailed) throw new NotFound('integration');
    throw e;
  }
}
