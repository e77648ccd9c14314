import { randomBytes } from 'node:crypto';
import { config } from '#shared/core/config.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';

// A tenant's inbound email address, `<slug>@<inbound domain>`: the slug is derived from the name at
// onboarding (a tenant made before it gets one on first use) and kept unique by its lookup item.

/** Local parts that mail systems reserve (RFC 2142) or that read as ours. */
const RESERVED = new Set([
  'postmaster',
  'abuse',
  'mailer-daemon',
  'hostmaster',
  'webmaster',
  'noreply',
  'no-reply',
  'support',
  'admin',
  'root',
]);
const MAX = 30;

/** `Café Rosé & Co.` -> `cafe-rose-co`; only a-z, 0-9 and inner hyphens (never `+`, the reply token's separator). */
export function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX)
    .replace(/-+$/, '');
  return base && !RESERVED.has(base) ? base : `team-${suffix()}`;
}

const suffix = () => randomBytes(3).toString('hex');
/** The slug to try after `slug` was taken. */
export const nextSlug = (base: string) => `${base.slice(0, MAX - 7)}-${suffix()}`;

export const inboundAddress = (slug: string) => `${slug}@${config.inboundDomain}`;
/** A conversation's reply address, `<slug>+<token>@<inbound domain>`. */
export const replyAddress = (slug: string, token: string) => `${slug}+${token}@${config.inboundDomain}`;

/** The tenant's slug, given now to a tenant made before inbound addresses. */
export async function ensureSlug(t: Tenant): Promise<string> {
  if (t.slug) return t.slug;
  let slug = slugOf(t.name);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await tenantsRepo.setSlug(t.id, slug);
      return slug;
    } catch (e) {
      if (!(e instanceof TxConditionFailed)) throw e;
      if (e.failed[1]) return (await tenantsRepo.get(t.id, true))?.slug ?? slug;
      slug = nextSlug(slugOf(t.name));
    }
  }
  throw new Error('no free slug');
}
