import { auditRepo, type AuditEntry } from '#shared/data/audit.ts';
import { membersRepo } from '#shared/data/members.ts';
import { displayNameOf } from './me.ts';

// Audit entries as people read them: who made the change (a member's name, not their user id),
// what it changed (a ticket's #number, an intent's name, an article's title) and the members a
// change names (an assignee). The entries themselves keep the ids; the names are read when listed,
// so a member who renames themselves is named the new way everywhere.

const NON_MEMBERS = { widget: 'the chat widget', system: 'the service' } as const;

export type NamedAuditEntry = AuditEntry & { actorName: string; targetName: string | null; names: Record<string, string> };

export async function namedEntries(tenantId: string, entries: AuditEntry[]): Promise<NamedAuditEntry[]> {
  if (entries.length === 0) return [];
  const [members, targets] = await Promise.all([membersRepo.list(tenantId), auditRepo.targetNames(tenantId, entries.map((e) => e.target))]);
  const people = new Map(members.map((m) => [m.id, displayNameOf({ displayName: m.displayName ?? null }, m)]));
  return entries.map((e) => {
    const names: Record<string, string> = {};
    for (const c of Object.values(e.changes)) {
      for (const v of [c.from, c.to]) if (typeof v === 'string' && people.has(v)) names[v] = people.get(v)!;
    }
    const actorName = e.actor.type === 'user' ? people.get(e.actor.id) ?? 'a former member' : NON_MEMBERS[e.actor.type];
    return { ...e, actorName, targetName: targets.get(`${e.target.type}:${e.target.id}`) ?? null, names };
  });
}
