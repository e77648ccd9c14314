import { randomUUID } from 'node:crypto';
import { membersRepo, type Member } from '#shared/data/members.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { Actor } from '#shared/data/items.ts';
import type { Membership } from '#shared/data/memberships.ts';
import { Conflict, NotFound } from '#shared/http/errors.ts';
import type { Role } from '#shared/routes.ts';

const lastOwner = () => new Conflict('the tenant must keep at least one owner');
const userActor = (sub: string): Actor => ({ type: 'user', id: sub });

export async function listMembers(m: Membership) {
  return { items: await membersRepo.list(m.tenantId) };
}

export async function inviteMember(m: Membership, body: { email: string; role: Role }): Promise<Member> {
  const email = body.email.toLowerCase();
  // The onboarding owner has no email guard item, so the list check covers existing members too.
  const existing = await membersRepo.list(m.tenantId);
  if (existing.some((x) => x.email?.toLowerCase() === email)) throw new Conflict('this email is already a member or invited');
  const member: Member = {
    id: `inv_${randomUUID().replace(/-/g, '')}`, userId: null, email, role: body.role, status: 'invited', createdAt: new Date().toISOString(),
  };
  try {
    await membersRepo.invite(m.tenantId, member, userActor(m.userId));
  } catch (e) {
    if (e instanceof TxConditionFailed) throw new Conflict('this email is already a member or invited');
    throw e;
  }
  return member;
}

/** Re-reads and retries when the member changed under us; a failed owner guard is the last-owner rule. */
async function withMember<T>(m: Membership, id: string, work: (member: Member) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const member = await membersRepo.get(m.tenantId, id);
    if (!member) throw new NotFound('member');
    try {
      return await work(member);
    } catch (e) {
      if (!(e instanceof TxConditionFailed) || attempt >= 3) throw e;
    }
  }
}

const decrementsOwners = (member: Member, to: Role | null) => member.status === 'active' && member.role === 'owner' && to !== 'owner';

export async function changeRole(m: Membership, id: string, role: Role): Promise<Member> {
  return withMember(m, id, async (member) => {
    if (member.role === role) return member;
    try {
      await membersRepo.setRole(m.tenantId, member, role, userActor(m.userId), new Date().toISOString());
    } catch (e) {
      // The owner-count guard is the last item of the transaction.
      if (e instanceof TxConditionFailed && decrementsOwners(member, role) && e.failed.at(-1)) throw lastOwner();
      throw e;
    }
    return { ...member, role };
  });
}

export async function removeMember(m: Membership, id: string): Promise<void> {
  await withMember(m, id, async (member) => {
    try {
      await membersRepo.remove(m.tenantId, member, userActor(m.userId), new Date().toISOString());
    } catch (e) {
      if (e instanceof TxConditionFailed && decrementsOwners(member, null) && e.failed.at(-1)) throw lastOwner();
      throw e;
    }
  });
}
