import { membersRepo, type Membership } from '#shared/data/members.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { User } from '#shared/core/vocabulary.ts';
import { NotOnboarded } from '#shared/core/errors.ts';

/** The name a member's messages carry: theirs, else the part of their email before `@`, else `Support`. */
export const displayNameOf = (membership: Pick<Membership, 'displayName'> | null, user: User): string =>
  membership?.displayName ?? (user.email?.split('@')[0] || 'Support');

/** The caller, their tenant and role (null and null before onboarding or an invitation). */
export async function me(user: User) {
  const membership = (await membersRepo.membershipOf(user.sub)) ?? (await joinInvitation(user));
  const tenant = membership ? await tenantsRepo.get(membership.tenantId) : null;
  return {
    user: { sub: user.sub, email: user.email },
    tenant: tenant ? { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt } : null,
    role: tenant ? membership!.role : null,
    displayName: displayNameOf(membership, user),
  };
}

/** A member names themselves; their next messages carry the name. The caller's membership is known already. */
export async function setDisplayName(user: User, membership: Membership, displayName: string) {
  const [updated, tenant] = await Promise.all([membersRepo.setDisplayName(user.sub, displayName), tenantsRepo.get(membership.tenantId)]);
  if (!updated || !tenant) throw new NotOnboarded();
  return {
    user: { sub: user.sub, email: user.email },
    tenant: { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt },
    role: membership.role,
    displayName,
  };
}

/**
 * A user without a tenant whose token email was invited joins the oldest inviting tenant. A
 * concurrent join or onboard wins the USER#sub condition; then we read what it made.
 */
async function joinInvitation(user: User): Promise<Membership | null> {
  if (!user.email) return null;
  const invitations = await membersRepo.invitationsFor(user.email);
  for (const inv of invitations) {
    try {
      const joined = await membersRepo.join(inv, user.sub, new Date().toISOString());
      return { tenantId: inv.tenantId, role: joined.role, userId: user.sub, displayName: null };
    } catch (e) {
      if (!(e instanceof TxConditionFailed)) throw e;
      const now = await membersRepo.membershipOf(user.sub);
      if (now) return now;
      // The invitation was revoked or taken meanwhile: try the next one.
    }
  }
  return null;
}
