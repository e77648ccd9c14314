import { membersRepo, type Membership } from '#shared/data/members.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import type { User } from '#shared/core/vocabulary.ts';
import { NotOnboarded } from '#shared/core/errors.ts';
import { clock } from '#shared/core/clock.ts';

// Addresses of a role, not a person: their owner is named by the team's word, never "Owner".
const ROLE_ADDRESSES = new Set([
  'admin',
  'administrator',
  'billing',
  'contact',
  'demo',
  'hello',
  'help',
  'info',
  'mail',
  'noreply',
  'office',
  'owner',
  'root',
  'sales',
  'service',
  'support',
  'team',
  'test',
  'user',
]);

/**
 * A person's name read from their email: "jane.doe@x.com" -> "Jane Doe", "j_smith+work@x" -> "J Smith".
 * Null when the address names a role ("owner@…", "support@…") or nothing at all.
 */
export function readableName(email: string | null): string | null {
  const local = (email?.split('@')[0] ?? '').replace(/\+.*$/, '');
  const words = local.split(/[^\p{L}]+/u).filter(Boolean);
  const role = (w: string) => ROLE_ADDRESSES.has(w.toLowerCase());
  if (words.length === 0 || role(words.join('')) || words.every(role)) return null;
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()).join(' ');
}

/** The name a member's messages carry: theirs, else a readable form of their email, else `Support`. */
export const displayNameOf = (membership: Pick<Membership, 'displayName'> | null, user: Pick<User, 'email'>): string =>
  membership?.displayName ?? readableName(user.email) ?? 'Support';

/** The caller, their tenant and role (null and null before onboarding or an invitation). */
export async function me(user: User) {
  const membership = (await membersRepo.membershipOf(user.sub)) ?? (await joinInvitation(user));
  const tenant = membership ? await tenantsRepo.get(membership.tenantId) : null;
  return {
    user: { sub: user.sub, email: user.email },
    tenant: tenant ? { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt } : null,
    role: tenant ? membership!.role : null,
    displayName: displayNameOf(membership, user),
    displayNameChosen: !!membership?.displayName,
  };
}

/** A member names themselves; their next messages carry the name. The caller's membership is known already. */
export async function setDisplayName(user: User, membership: Membership, displayName: string) {
  const [updated, tenant] = await Promise.all([
    membersRepo.setDisplayName(membership.tenantId, user.sub, displayName),
    tenantsRepo.get(membership.tenantId),
  ]);
  if (!updated || !tenant) throw new NotOnboarded();
  return {
    user: { sub: user.sub, email: user.email },
    tenant: { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt },
    role: membership.role,
    displayName,
    displayNameChosen: true,
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
      const joined = await membersRepo.join(inv, user.sub, clock.iso());
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
