import { memberships } from '#shared/data/memberships.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import type { User } from '#shared/http/kit.ts';

/** The caller, their tenant and role (null and null before onboarding or an invitation). */
export async function me(user: User) {
  const membership = await memberships.ofUser(user.sub);
  const tenant = membership ? await tenantsRepo.get(membership.tenantId) : null;
  return {
    user: { sub: user.sub, email: user.email },
    tenant: tenant ? { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt } : null,
    role: tenant ? membership!.role : null,
  };
}
