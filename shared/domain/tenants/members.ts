import { membersRepo, type Member } from '#shared/data/members.ts';
import { retrying, TxConditionFailed } from '#shared/data/tx.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { Conflict, NotFound } from '#shared/core/errors.ts';
import type { Role } from '#shared/core/vocabulary.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { displayNameOf } from './me.ts';
import { clock, newId } from '#shared/core/clock.ts';

const full = () => new Conflict(`a tenant has at most ${LIMITS.membersPerTenant} members and pending invitations`);
const lastOwner = () => new Conflict('the tenant must keep at least one owner');

/** A member as the routes show them: with the name their messages carry (chosen, else read from the email). */
const named = (m: Member) => ({ ...m, displayName: displayNameOf({ displayName: m.displayName ?? null }, m) });

export async function listMembers(tenantId: string) {
  return { items: (await membersRepo.list(tenantId)).map(named) };
}

export async function inviteMember(tenantId: string, actor: Actor, body: { email: string; role: Role }) {
  const email = body.email.toLowerCase();
  // The onboarding owner has no email guard item, so the list check covers existing members too.
  const existing = await membersRepo.list(tenantId);
  if (existing.some((x) => x.email?.toLowerCase() === email))
    throw new Conflict('this email is already a member or invited');
  // The list covers tenants older than the tally; the tally in the transaction covers concurrent invitations.
  if (existing.length >= LIMITS.membersPerTenant) throw full();
  const member: Member = {
    id: `inv_${newId().replace(/-/g, '')}`,
    userId: null,
    email,
    role: body.role,
    status: 'invited',
    createdAt: clock.iso(),
  };
  try {
    await membersRepo.invite(tenantId, member, actor, LIMITS.membersPerTenant);
  } catch (e) {
    if (e instanceof TxConditionFailed && e.failed[3]) throw full();
    if (e instanceof TxConditionFailed) throw new Conflict('this email is already a member or invited');
    throw e;
  }
  return named(member);
}

/** Re-reads and retries when the member changed under us; a failed owner guard is the last-owner rule. */
async function withMember<T>(tenantId: string, id: string, work: (member: Member) => Promise<T>): Promise<T> {
  return retrying(
    async () => {
      const member = await membersRepo.get(tenantId, id);
      if (!member) throw new NotFound('member');
      return work(member);
    },
    { attempts: 4, conflict: 'the member changed concurrently; try again' },
  );
}

const decrementsOwners = (member: Member, to: Role | null) =>
  member.status === 'active' && member.role === 'owner' && to !== 'owner';

export async function changeRole(tenantId: string, actor: Actor, id: string, role: Role) {
  return withMember(tenantId, id, async (member) => {
    if (member.role === role) return named(member);
    try {
      await membersRepo.setRole(tenantId, member, role, actor, clock.iso());
    } catch (e) {
      // The owner-count guard is the last item of the transaction.
      if (e instanceof TxConditionFailed && decrementsOwners(member, role) && e.failed.at(-1)) throw lastOwner();
      throw e;
    }
    return named({ ...member, role });
  });
}

export async function removeMember(tenantId: string, actor: Actor, id: string): Promise<void> {
  await withMember(tenantId, id, async (member) => {
    try {
      await membersRepo.remove(tenantId, member, actor, clock.iso());
    } catch (e) {
      if (e instanceof TxConditionFailed && decrementsOwners(member, null) && e.failed.at(-1)) throw lastOwner();
      throw e;
    }
  });
}
