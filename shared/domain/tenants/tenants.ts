import { membersRepo } from '#shared/data/members.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import { Conflict } from '#shared/core/errors.ts';
import { starterContent } from '#shared/domain/starter/seed.ts';
import { newWidgetKey } from './widget-keys.ts';
import { nextSlug, slugOf } from './slug.ts';
import { clock, newId } from '#shared/core/clock.ts';

export const alreadyOnboarded = () => new Conflict('you already belong to a tenant', 'ALREADY_ONBOARDED');

/** Creates a tenant with the caller as owner, its widget key (returned whole, only here) and its starter content. */
export async function onboard(user: { sub: string; email: string | null }, tenantName: string) {
  if (await membersRepo.membershipOf(user.sub)) throw alreadyOnboarded();
  const now = clock.iso();
  const wk = newWidgetKey();
  const base = slugOf(tenantName);
  const id = newId();
  const { intents } = starterContent(now);
  const tenant: Tenant = {
    id,
    name: tenantName,
    slug: base,
    createdAt: now,
    updatedAt: now,
    config: {},
    intentsVersion: 1,
    intentCount: intents.length,
    ownerCount: 1,
    memberCount: 1,
    widgetKeyHash: wk.hash,
    widgetKeyPreview: wk.preview,
    widgetKeyCreatedAt: now,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      await tenantsRepo.create({ tenant, owner: user, intents });
      break;
    } catch (e) {
      // Index 1 is the user's lookup item: a concurrent onboard of the same user got there first.
      if (e instanceof TxConditionFailed && e.failed[1]) throw alreadyOnboarded();
      // Index 2 is the slug's: another tenant has that inbound address; try it with a suffix.
      if (e instanceof TxConditionFailed && e.failed[2] && attempt < 5) {
        tenant.slug = nextSlug(base);
        continue;
      }
      throw e;
    }
  }
  return {
    tenant: { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt },
    role: 'owner' as const,
    widgetKey: wk.key,
  };
}
