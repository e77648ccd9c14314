import { Conflict, NotFound } from '#shared/core/errors.ts';
import { conversationsRepo } from '#shared/data/conversations.ts';
import { labelKey, labelsRepo } from '#shared/data/labels.ts';
import { retrying, transact } from '#shared/data/tx.ts';
import { summary } from '#shared/domain/handoff/conversations-admin.ts';
import { LIMITS } from '#shared/domain/limits.ts';

// Labels on conversations: set by an agent, listed with their counts, filtered on in the inbox
// (handoff/conversations-admin.ts). A label keeps the spelling it was first given in the tenant.

/** PATCH of a conversation: `labels` replaces its labels, the counts moving in the same transaction. */
export function patchConversation(tenantId: string, conversationId: string, patch: { labels?: string[] | undefined }) {
  return retrying(
    async () => {
      const [conv, known] = await Promise.all([
        conversationsRepo.get(tenantId, conversationId, true),
        labelsRepo.list(tenantId),
      ]);
      if (!conv) throw new NotFound('conversation');
      if (patch.labels === undefined) return summary(conv);
      const labels = patch.labels;
      const spelling = new Map(known.map((l) => [l.key, l.name]));
      const next: string[] = [];
      const nextKeys = new Set<string>();
      for (const l of labels) {
        const key = labelKey(l);
        if (nextKeys.has(key)) continue;
        nextKeys.add(key);
        next.push(spelling.get(key) ?? l);
      }
      const before = conv.labels ?? [];
      const beforeKeys = new Set(before.map(labelKey));
      const added = next.filter((l) => !beforeKeys.has(labelKey(l)));
      const removed = before.filter((l) => !nextKeys.has(labelKey(l)));
      if (added.length === 0 && removed.length === 0 && JSON.stringify(before) === JSON.stringify(next))
        return summary(conv);
      const inUse = new Set(known.filter((l) => l.count > 0).map((l) => l.key));
      const fresh = added.filter((l) => !inUse.has(labelKey(l))).length;
      if (fresh > 0 && inUse.size + fresh > LIMITS.labelsPerTenant) {
        throw new Conflict(
          `a tenant uses at most ${LIMITS.labelsPerTenant} different labels; reuse one or take an unused one off its conversations`,
        );
      }
      await transact([
        conversationsRepo.tx.setLabels(conv, next),
        ...added.flatMap((l) => labelsRepo.tx.add(tenantId, l, conv)),
        ...removed.flatMap((l) => labelsRepo.tx.remove(tenantId, l, conv)),
      ]);
      return summary({ ...conv, labels: next });
    },
    { attempts: 6, conflict: "the conversation's labels changed concurrently; try again", jitterMs: 20 },
  );
}

/** The labels on at least one conversation, most used first. */
export async function listLabels(tenantId: string) {
  const all = await labelsRepo.list(tenantId);
  return {
    items: all
      .filter((l) => l.count > 0)
      .map(({ name, count }) => ({ name, count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
  };
}
