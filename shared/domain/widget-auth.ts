import { OriginNotAllowed, Unauthorized } from '#shared/core/errors.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { hashWidgetKey } from './widget-keys.ts';

export interface WidgetTenant { tenantId: string }

/**
 * Widget keys resolve to their tenant through the hash lookup item, cached briefly in the
 * container. A rotated-out key keeps working at most CACHE_MS here: within the contract's 60 s.
 */
const CACHE_MS = 30_000;
const MAX_ENTRIES = 1000;
const cache = new Map<string, { tenantId: string; allowedOrigins: string[]; until: number }>();

const KEY_SHAPE = /^wk_[A-Za-z0-9_-]{20,100}$/;

export async function widgetTenant(key: string | undefined, origin: string | undefined): Promise<WidgetTenant> {
  if (!key) throw new Unauthorized('the X-Widget-Key header is required');
  if (!KEY_SHAPE.test(key)) throw new Unauthorized('unknown widget key');
  const hash = hashWidgetKey(key);
  let hit = cache.get(hash);
  if (!hit || hit.until < Date.now()) {
    const tenantId = await tenantsRepo.tenantOfWidgetKey(hash);
    if (!tenantId) { cache.delete(hash); throw new Unauthorized('unknown widget key'); }
    const tenant = await tenantsRepo.get(tenantId);
    if (!tenant || tenant.widgetKeyHash !== hash) { cache.delete(hash); throw new Unauthorized('unknown widget key'); }
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    hit = { tenantId, allowedOrigins: allowedOriginsOf(tenant.config), until: Date.now() + CACHE_MS };
    cache.set(hash, hit);
  }
  if (origin !== undefined && hit.allowedOrigins.length > 0 && !hit.allowedOrigins.includes(origin)) throw new OriginNotAllowed();
  return { tenantId: hit.tenantId };
}

const allowedOriginsOf = (config: Record<string, unknown>): string[] => {
  const widget = config.widget as { allowedOrigins?: unknown } | undefined;
  return Array.isArray(widget?.allowedOrigins) ? widget.allowedOrigins.filter((o): o is string => typeof o === 'string') : [];
};
