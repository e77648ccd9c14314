import { auditRepo, type AuditEntry } from '#shared/data/audit.ts';
import { keys, type Key } from '#shared/data/keys.ts';
import type { User } from '#shared/core/vocabulary.ts';
import { displayNameOf } from './me.ts';

// Audit entries as people read them: who made the change (a member's name, not their user id),
// what it changed (a ticket's #number, an intent's name, an article's title) and the members a
// change names (an assignee). The entries themselves keep the ids; the names are read when listed,
// so a member who renames themselves is named the new way everywhere.

const NON_MEMBERS = { widget: 'the chat widget', system: 'the service' } as const;
/** A string value that may be a member's id (a user's sub): short, no spaces. */
const MAY_BE_ID = /^[^\s]{1,200}$/;

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

/**
 * The entries with their names; and the items at `also`, by `pk|sk`, read in the same BatchGet (the
 * ticket's conversation), so that naming costs the caller no round trip of its own. The members
 * a change may name (its actor, an assignee) are read by id: any string value may be a member's.
 */
export async function namedEntries(
  tenantId: string,
  entries: AuditEntry[],
  also: Key[] = [],
): Promise<{ entries: NamedAuditEntry[]; also: Map<string, Record<string, unknown>> }> {
  if (entries.length === 0 && also.length === 0) return { entries: [], also: new Map() };
  const values = (e: AuditEntry) => Object.values(e.changes).flatMap((c) => [c.from, c.to]);
  const refs = entries.flatMap((e) =>
    values(e)
      .map(referenced)
      .filter((r) => r !== null),
  );
  const memberIds = new Set(
    entries.flatMap((e) => [
      ...(e.actor.type === 'user' ? [e.actor.id] : []),
      ...values(e).filter((v): v is string => typeof v === 'string' && MAY_BE_ID.test(v)),
    ]),
  );
  const memberKeys = [...memberIds].map((id) => keys.member(tenantId, id));
  const { names: targets, items } = await auditRepo.targetNames(
    tenantId,
    [...entries.map((e) => e.target), ...refs],
    [...memberKeys, ...also],
  );
  const people = new Map<string, string>();
  for (const k of memberKeys) {
    const m = items.get(`${k.pk}|${k.sk}`);
    if (m)
      people.set(
        m.id as string,
        displayNameOf({ displayName: (m.displayName as string | undefined) ?? null }, {
          email: (m.email as string | null | undefined) ?? null,
        } as Pick<User, 'email'>),
      );
  }
  const named = entries.map((e) => {
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
  return { entries: named, also: items };
}
