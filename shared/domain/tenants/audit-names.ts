import { auditRepo, type AuditEntry } from '#shared/data/audit.ts';
import { membersRepo } from '#shared/data/members.ts';
import { displayNameOf } from './me.ts';

// Audit entries as people read them: who made the change (a member's name, not their user id),
// what it changed (a ticket's #number, an intent's name, an article's title) and the members a
// change names (an assignee). The entries themselves keep the ids; the names are read when listed,
// so a member who renames themselves is named the new way everywhere.

const NON_MEMBERS = { widget: 'the chat widget', system: 'the service' } as const;

export type NamedAuditEntry = AuditEntry & {
  actorName: string;
  targetName: string | null;
  names: Record<string, string>;
};

/** The intents and articles a change names by id (a taught example's `{ intentId }` or `{ articleId }`). */
function referenced(v: unknown): { type: string; id: string } | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o.intentId === 'string') return { type: 'intent', id: o.intentId };
  if (typeof o.articleId === 'string') return { type: 'article', id: o.articleId };
  return null;
}

export async function namedEntries(tenantId: string, entries: AuditEntry[]): Promise<NamedAuditEntry[]> {
  if (entries.length === 0) return [];
  const values = (e: AuditEntry) => Object.values(e.changes).flatMap((c) => [c.from, c.to]);
  const refs = entries.flatMap((e) =>
    values(e)
      .map(referenced)
      .filter((r) => r !== null),
  );
  const [members, targets] = await Promise.all([
    membersRepo.list(tenantId),
    auditRepo.targetNames(tenantId, [...entries.map((e) => e.target), ...refs]),
  ]);
  const people = new Map(members.map((m) => [m.id, displayNameOf({ displayName: m.displayName ?? null }, m)]));
  return entries.map((e) => {
    const names: Record<string, string> = {};
    for (const v of values(e)) {
      if (typeof v === 'string' && people.has(v)) names[v] = people.get(v)!;
      const ref = referenced(v);
      const refName = ref && targets.get(`${ref.type}:${ref.id}`);
      if (ref && refName) names[ref.id] = refName;
    }
    const actorName =
      e.actor.type === 'user' ? (people.get(e.actor.id) ?? 'a former member') : NON_MEMBERS[e.actor.type];
    return { ...e, actorName, targetName: targets.get(`${e.target.type}:${e.target.id}`) ?? null, names };
  });
}
