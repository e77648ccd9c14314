import { randomUUID } from 'node:crypto';
import { intentsRepo, intentWrites, MAX_INTENTS, type Intent } from '#shared/data/intents.ts';
import { auditPut, type Actor } from '#shared/data/items.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { Membership } from '#shared/data/memberships.ts';
import { Conflict, NotFound } from '#shared/http/errors.ts';
import type { IntentInput } from '#shared/http/schemas/intents.ts';

const FIELDS = ['name', 'description', 'trainingPhrases', 'response', 'entities', 'action', 'enabled'] as const;
const nameTaken = (name: string) => new Conflict(`an intent named ${name} already exists`);
const actorOf = (m: Membership): Actor => ({ type: 'user', id: m.userId });

// An audit entry must stay far below DynamoDB's 400 KB item size: long values are summarised.
const MAX_AUDIT_VALUE = 4096;
const auditValue = (v: unknown): unknown => {
  if (v === undefined) return null;
  const s = JSON.stringify(v);
  if (s.length <= MAX_AUDIT_VALUE) return v;
  return Array.isArray(v) ? { items: v.length, truncated: true } : { truncated: true };
};

/** `{ field: { from, to } }` for each field whose value differs. */
export function intentChanges(before: Partial<Intent> | null, after: Partial<Intent> | null) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of FIELDS) {
    const from = before?.[f];
    const to = after?.[f];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[f] = { from: auditValue(from), to: auditValue(to) };
  }
  return changes;
}

const audit = (m: Membership, action: string, id: string, changes: Record<string, { from: unknown; to: unknown }>, createdAt: string) =>
  auditPut(m.tenantId, { category: 'intent', action, actor: actorOf(m), target: { type: 'intent', id }, changes, createdAt });

export async function listIntents(m: Membership) {
  return { items: await intentsRepo.list(m.tenantId) };
}

export async function getIntent(m: Membership, id: string) {
  const intent = await intentWrites.get(m.tenantId, id);
  if (!intent) throw new NotFound('intent');
  return intent;
}

export async function createIntent(m: Membership, input: IntentInput) {
  const now = new Date().toISOString();
  const intent: Intent = { id: randomUUID(), ...pick(input), createdAt: now, updatedAt: now };
  try {
    await intentWrites.create(m.tenantId, intent, audit(m, 'intent.created', intent.id, intentChanges(null, intent), now));
  } catch (e) {
    if (e instanceof TxConditionFailed && e.failed[1]) throw nameTaken(intent.name);
    if (e instanceof TxConditionFailed && e.failed[2]) throw new Conflict(`a tenant has at most ${MAX_INTENTS} intents`);
    throw e;
  }
  return { ...intent, hitCount: 0 };
}

export async function replaceIntent(m: Membership, id: string, input: IntentInput) {
  for (let attempt = 0; ; attempt++) {
    const current = await getIntent(m, id);
    const { hitCount, ...before } = current;
    const changes = intentChanges(before, { ...before, ...pick(input) });
    // Writing the same intent again changes nothing: no version bump, no audit entry.
    if (Object.keys(changes).length === 0) return current;
    const now = new Date().toISOString();
    const after: Intent = { ...before, ...pick(input), updatedAt: now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString() };
    try {
      await intentWrites.replace(m.tenantId, before, after, audit(m, 'intent.updated', id, changes, now));
      return { ...after, hitCount };
    } catch (e) {
      if (!(e instanceof TxConditionFailed)) throw e;
      if (before.name !== after.name && e.failed[2]) throw nameTaken(after.name);
      // A concurrent write won: re-read (404 if it was a delete) and apply ours on top.
      if (attempt >= 3) throw new Conflict('the intent changed concurrently; try again');
    }
  }
}

export async function deleteIntent(m: Membership, id: string) {
  for (let attempt = 0; ; attempt++) {
    const { hitCount, ...intent } = await getIntent(m, id);
    void hitCount;
    const now = new Date().toISOString();
    try {
      await intentWrites.remove(m.tenantId, intent, audit(m, 'intent.deleted', id, intentChanges(intent, null), now));
      return;
    } catch (e) {
      if (!(e instanceof TxConditionFailed) || attempt >= 3) throw e;
    }
  }
}

const pick = (i: IntentInput) => ({
  name: i.name, description: i.description, trainingPhrases: i.trainingPhrases, response: i.response,
  entities: i.entities.map((e) => (e.pattern === undefined ? { name: e.name, type: e.type } : { name: e.name, type: e.type, pattern: e.pattern })),
  action: i.action, enabled: i.enabled,
});
