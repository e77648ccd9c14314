import { Conflict, NotFound } from '#shared/core/errors.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { savedRepliesRepo, type SavedReply } from '#shared/data/saved-replies.ts';
import { retrying, TxConditionFailed } from '#shared/data/tx.ts';
import { auditValue } from '#shared/domain/audit-value.ts';
import { clock, newId } from '#shared/core/clock.ts';

// Saved replies: what an agent picks with `/` in the reply box. The dashboard fills in the
// placeholders (core/vocabulary.ts) before sending; the service keeps the text as written.

export const MAX_SAVED_REPLIES = 500;

export type SavedReplyInput = Pick<SavedReply, 'shortcut' | 'title' | 'body'>;

const FIELDS = ['shortcut', 'title', 'body'] as const;
const taken = (shortcut: string) => new Conflict(`the shortcut /${shortcut} is already used by another saved reply`);
const RETRY = { attempts: 4, conflict: 'the saved reply changed concurrently; try again' };

function changesOf(before: SavedReply | null, after: SavedReply | null) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of FIELDS) {
    if (before?.[f] !== after?.[f])
      changes[f] = { from: auditValue(before?.[f] ?? null), to: auditValue(after?.[f] ?? null) };
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
  auditRepo.tx.put(tenantId, {
    category: 'settings',
    action,
    actor,
    target: { type: 'saved_reply', id },
    changes,
    createdAt,
  });

export async function listSavedReplies(tenantId: string) {
  return { items: await savedRepliesRepo.list(tenantId) };
}

async function existing(tenantId: string, id: string) {
  const r = await savedRepliesRepo.get(tenantId, id);
  if (!r) throw new NotFound('saved reply');
  return r;
}

export async function createSavedReply(tenantId: string, actor: Actor, input: SavedReplyInput) {
  const now = clock.iso();
  const reply: SavedReply = {
    id: newId(),
    shortcut: input.shortcut,
    title: input.title,
    body: input.body,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await savedRepliesRepo.put(
      tenantId,
      reply,
      MAX_SAVED_REPLIES,
      audit(tenantId, actor, 'saved_reply.created', reply.id, changesOf(null, reply), now),
    );
  } catch (e) {
    if (e instanceof TxConditionFailed && e.failed[1]) throw taken(reply.shortcut);
    if (e instanceof TxConditionFailed && e.failed[2])
      throw new Conflict(`a tenant has at most ${MAX_SAVED_REPLIES} saved replies`);
    throw e;
  }
  return reply;
}

export function replaceSavedReply(tenantId: string, actor: Actor, id: string, input: SavedReplyInput) {
  return retrying(async () => {
    const before = await existing(tenantId, id);
    const now = clock.iso();
    const after: SavedReply = {
      ...before,
      shortcut: input.shortcut,
      title: input.title,
      body: input.body,
      updatedAt: now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString(),
    };
    const changes = changesOf(before, after);
    // The same reply written again changes nothing and records nothing.
    if (Object.keys(changes).length === 0) return before;
    try {
      await savedRepliesRepo.update(
        tenantId,
        before,
        after,
        audit(tenantId, actor, 'saved_reply.updated', id, changes, now),
      );
    } catch (e) {
      if (e instanceof TxConditionFailed && before.shortcut !== after.shortcut && e.failed[1])
        throw taken(after.shortcut);
      throw e;
    }
    return after;
  }, RETRY);
}

export async function deleteSavedReply(tenantId: string, actor: Actor, id: string) {
  await retrying(async () => {
    const reply = await existing(tenantId, id);
    const now = clock.iso();
    await savedRepliesRepo.remove(
      tenantId,
      reply,
      audit(tenantId, actor, 'saved_reply.deleted', id, changesOf(reply, null), now),
    );
  }, RETRY);
}
