import { intentsRepo, MAX_INTENTS, type Intent } from '#shared/data/intents.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { retrying, TxConditionFailed } from '#shared/data/tx.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { Conflict, fieldError, NotFound } from '#shared/core/errors.ts';
import { templateNames } from '#shared/nlu/index.ts';
import { auditValue, sameValue } from '#shared/domain/audit-value.ts';
import { indexingFrom, indexingOf } from '#shared/domain/vectors.ts';
import { vectorsRepo } from '#shared/data/vectors.ts';
import { keyString } from '#shared/data/lists.ts';
import { dataPaths, findActionIntegration } from '#shared/domain/events-out/actions.ts';
import { TEMPLATE_BLANKS } from '#shared/domain/starter/templates.ts';
import { SETTINGS_PLACEHOLDERS } from './placeholders.ts';
import { reviewedIntents } from '#shared/domain/starter/review.ts';
import { clock, newId } from '#shared/core/clock.ts';

/** What a write of an intent gives: every field but the ones the service keeps. */
export type IntentInput = Omit<Intent, 'id' | 'createdAt' | 'updatedAt'>;

const FIELDS = [
  'name',
  'description',
  'trainingPhrases',
  'response',
  'entities',
  'action',
  'integrationId',
  'failureResponse',
  'enabled',
] as const;
const nameTaken = (name: string) => new Conflict(`an intent named ${name} already exists`);

/** `{ field: { from, to } }` for each field whose value differs. */
export function intentChanges(before: Partial<Intent> | null, after: Partial<Intent> | null) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of FIELDS) {
    const from = before?.[f];
    const to = after?.[f];
    if (!sameValue(from, to)) changes[f] = { from: auditValue(from), to: auditValue(to) };
  }
  return changes;
}

const audit = (
  tenantId: string,
  actor: Actor,
  action: string,
  id: string,
  changes: Record<string, { from: unknown; to: unknown }>,
  createdAt: string,
) =>
  auditRepo.tx.put(tenantId, { category: 'intent', action, actor, target: { type: 'intent', id }, changes, createdAt });

/** The intent as the API shows it: the marks default to false. */
const shown = <T extends Intent>(i: T) => ({ ...i, starter: i.starter === true, needsReview: i.needsReview === true });

export async function listIntents(tenantId: string) {
  const [items, indexing] = await Promise.all([reviewedIntents(tenantId), indexingOf(tenantId)]);
  return { items: items.map((i) => ({ ...shown(i), indexing: indexing(i) })) };
}

export async function getIntent(tenantId: string, id: string) {
  // The intent, its hits and the indexer's state: one BatchGet.
  const stateKey = vectorsRepo.stateKey(tenantId);
  const { intent, also } = await intentsRepo.getWith(tenantId, id, [stateKey]);
  if (!intent) throw new NotFound('intent');
  return { ...shown(intent), indexing: indexingFrom(vectorsRepo.stateOf(also.get(keyString(stateKey))))(intent) };
}

/**
 * A reply never shows a hole: every placeholder names one of the intent's entities (which it then
 * waits for) or a value from the settings (without which it falls back). A calling intent's
 * `{{data.path}}` placeholders are filled from its action's answer.
 */
function checkPlaceholders(input: IntentInput) {
  const known = new Set<string>([...input.entities.map((e) => e.name), ...SETTINGS_PLACEHOLDERS]);
  const unknown = templateNames(input.response).find((n) => !known.has(n));
  if (unknown !== undefined)
    throw fieldError(
      'response',
      `uses {{${unknown}}}, which is neither one of its entities nor ${SETTINGS_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`,
    );
  if (input.action !== 'call' && dataPaths(input.response).length > 0) {
    throw fieldError('response', 'uses {{data...}} placeholders, which only an intent with action "call" fills');
  }
  // A template's blank left as it is would be told to customers as if it were the business's fact.
  const blank = [...TEMPLATE_BLANKS].find((b) => input.response.includes(b));
  if (blank !== undefined)
    throw fieldError('response', `still has the template's blank ${blank}: write your own facts in its place`);
}

/** `integrationId` and `failureResponse` go with `action: "call"` only, and name an action integration of the tenant. */
async function checkCall(tenantId: string, input: IntentInput) {
  if (input.action !== 'call') {
    if (input.integrationId !== undefined) throw fieldError('integrationId', 'is only allowed with action "call"');
    if (input.failureResponse !== undefined) throw fieldError('failureResponse', 'is only allowed with action "call"');
    return;
  }
  if (input.integrationId === undefined)
    throw fieldError('integrationId', 'is required with action "call" (an action integration\'s id)');
  const i = await findActionIntegration(tenantId, input.integrationId);
  if (!i) throw fieldError('integrationId', "must be the id of one of this team's action integrations");
}

export async function createIntent(tenantId: string, actor: Actor, input: IntentInput) {
  checkPlaceholders(input);
  await checkCall(tenantId, input);
  const now = clock.iso();
  const intent: Intent = { id: newId(), ...pick(input), createdAt: now, updatedAt: now };
  try {
    await intentsRepo.put(
      tenantId,
      intent,
      audit(tenantId, actor, 'intent.created', intent.id, intentChanges(null, intent), now),
    );
  } catch (e) {
    if (e instanceof TxConditionFailed && e.failed[1]) throw nameTaken(intent.name);
    if (e instanceof TxConditionFailed && e.failed[2])
      throw new Conflict(`a tenant has at most ${MAX_INTENTS} intents`);
    throw e;
  }
  return { ...shown(intent), hitCount: 0, indexing: true };
}

export async function replaceIntent(tenantId: string, actor: Actor, id: string, input: IntentInput) {
  checkPlaceholders(input);
  await checkCall(tenantId, input);
  // A concurrent write won: re-read (404 if it was a delete) and apply ours on top.
  return retrying(
    async () => {
      const current = await getIntent(tenantId, id);
      const { hitCount, indexing: _, ...before } = current;
      const changes = intentChanges(before, { ...before, ...pick(input) });
      // Writing the same intent again changes nothing: no version bump, no audit entry.
      if (Object.keys(changes).length === 0) return current;
      const now = clock.iso();
      const after: Intent = {
        ...before,
        ...pick(input),
        updatedAt: now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString(),
      };
      // An edit makes it the team's own (switching it on or off alone does not); any write is the team's review.
      if (Object.keys(changes).some((f) => f !== 'enabled')) delete after.starter;
      delete after.needsReview;
      try {
        await intentsRepo.update(tenantId, before, after, audit(tenantId, actor, 'intent.updated', id, changes, now));
      } catch (e) {
        if (e instanceof TxConditionFailed && before.name !== after.name && e.failed[2]) throw nameTaken(after.name);
        throw e;
      }
      return { ...shown(after), hitCount, indexing: true };
    },
    { attempts: 4, conflict: 'the intent changed concurrently; try again' },
  );
}

export async function deleteIntent(tenantId: string, actor: Actor, id: string) {
  await retrying(
    async () => {
      const { hitCount: _h, indexing: _i, ...intent } = await getIntent(tenantId, id);
      const now = clock.iso();
      await intentsRepo.remove(
        tenantId,
        intent,
        audit(tenantId, actor, 'intent.deleted', id, intentChanges(intent, null), now),
      );
    },
    { attempts: 4, conflict: 'the intent changed concurrently; try again' },
  );
}

const pick = (i: IntentInput) => ({
  name: i.name,
  description: i.description,
  trainingPhrases: i.trainingPhrases,
  response: i.response,
  entities: i.entities.map((e) => ({
    name: e.name,
    type: e.type,
    ...(e.pattern === undefined ? {} : { pattern: e.pattern }),
    ...(e.required ? { required: true } : {}),
    ...(e.required && e.prompt !== undefined ? { prompt: e.prompt } : {}),
  })),
  action: i.action,
  enabled: i.enabled,
  ...(i.action === 'call'
    ? {
        integrationId: i.integrationId,
        ...(i.failureResponse === undefined ? {} : { failureResponse: i.failureResponse }),
      }
    : {}),
});
