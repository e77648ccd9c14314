import { NotFound, OriginNotAllowed, Unauthorized } from '#shared/core/errors.ts';
import type { Conversation } from '#shared/data/conversations.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { hashWidgetKey } from './widget-keys.ts';
import { clock } from '#shared/core/clock.ts';

export interface WidgetTenant {
  tenantId: string;
}

/**
 * Widget keys resolve to their tenant through the hash lookup item, cached briefly in the
 * container. The item is read strongly and is the whole check: rotating a key and starting a
 * tenant's deletion delete it in the same transaction as the tenant's change. A rotated-out key keeps working at most CACHE_MS here: within the 60 s of docs/API.md.
 * Only the key is cached: the tenant's settings (allowed origins among them) are read fresh by
 * every chat request, which checks the origin with `assertOrigin`.
 */
const CACHE_MS = 30_000;
const MAX_ENTRIES = 1000;
const cache = new Map<string, { tenantId: string; until: number }>();

const KEY_SHAPE = /^wk_[A-Za-z0-9_-]{20,100}$/;

export async function widgetTenant(key: string | undefined): Promise<WidgetTenant> {
  if (!key) throw new Unauthorized('the X-Widget-Key header is required');
  if (!KEY_SHAPE.test(key)) throw new Unauthorized('unknown widget key');
  const hash = hashWidgetKey(key);
  let hit = cache.get(hash);
  if (!hit || hit.until < clock.now()) {
    const tenantId = await tenantsRepo.tenantOfWidgetKey(hash);
    if (!tenantId) {
      cache.delete(hash);
      throw new Unauthorized('unknown widget key');
    }
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    hit = { tenantId, until: clock.now() + CACHE_MS };
    cache.set(hash, hit);
  }
  return { tenantId: hit.tenantId };
}

/** A request with an `Origin` outside the tenant's non-empty `widget.allowedOrigins` is refused; none passes; a deleted tenant refuses all. */
export function assertOrigin(tenant: Pick<Tenant, 'config' | 'deletingSince'>, origin: string | undefined): void {
  // A tenant being deleted answers no chat request, whatever a container's key cache still holds.
  if (tenant.deletingSince) throw new Unauthorized('unknown widget key');
  if (origin === undefined) return;
  const allowed = allowedOriginsOf(tenant.config ?? {});
  if (allowed.length > 0 && !allowed.includes(origin)) throw new OriginNotAllowed();
}

const allowedOriginsOf = (config: Record<string, unknown>): string[] => {
  const widget = config.widget as { allowedOrigins?: unknown } | undefined;
  return Array.isArray(widget?.allowedOrigins)
    ? widget.allowedOrigins.filter((o): o is string => typeof o === 'string')
    : [];
};

/** The tenant, read fresh (strongly), whose origin rule the request passes. */
export async function freshTenant(tenantId: string, origin: string | undefined): Promise<Tenant> {
  const tenant = await tenantsRepo.get(tenantId, true);
  if (!tenant) throw new Unauthorized('unknown widget key');
  assertOrigin(tenant, origin);
  return tenant;
}

/** A chat request's conversation with its tenant in one read; the origin rule applies, an unknown id is 404. */
export async function widgetConversation(
  tenantId: string,
  conversationId: string,
  origin: string | undefined,
): Promise<Conversation> {
  const r = await tenantsRepo.withConversation(tenantId, conversationId);
  if (!r.tenant) throw new NotFound('conversation');
  assertOrigin(r.tenant, origin);
  if (!r.conversation) throw new NotFound('conversation');
  return r.conversation;
}
