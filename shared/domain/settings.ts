import { settingsRepo } from '#shared/data/settings.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import type { Membership } from '#shared/data/memberships.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import { Conflict, NotFound, ValidationError, fieldError } from '#shared/http/errors.ts';
import { KnownConfig } from '#shared/http/schemas/settings.ts';
import { mergePatch } from './merge-patch.ts';
import { newWidgetKey } from './widget-keys.ts';

export const MAX_CONFIG_BYTES = 16 * 1024;

const view = (t: Tenant) => ({
  tenant: { id: t.id, name: t.name }, config: t.config ?? {},
  widgetKey: { preview: t.widgetKeyPreview, createdAt: t.widgetKeyCreatedAt },
});

async function tenantOf(m: Membership): Promise<Tenant> {
  const t = await settingsRepo.tenant(m.tenantId);
  if (!t) throw new NotFound('tenant');
  return t;
}

export const getSettings = async (m: Membership) => view(await tenantOf(m));

/** The merged config, or a 400 naming the failing known key or the size limit. */
export function mergeConfig(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = mergePatch(current, patch) as Record<string, unknown>;
  const r = KnownConfig.safeParse(merged);
  if (!r.success) {
    const errors = r.error.issues.map((i) => ({ path: ['config', ...i.path.map(String)].join('.'), message: i.message }));
    throw new ValidationError(`${errors[0]!.path} ${errors[0]!.message}`, errors);
  }
  if (Buffer.byteLength(JSON.stringify(merged)) > MAX_CONFIG_BYTES) throw fieldError('config', `must be at most ${MAX_CONFIG_BYTES} bytes as JSON once merged`);
  return merged;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function putSettings(m: Membership, body: { name?: string | undefined; config?: Record<string, unknown> | undefined }) {
  for (let attempt = 0; ; attempt++) {
    const t = await tenantOf(m);
    const current = t.config ?? {};
    const config = body.config === undefined ? current : mergeConfig(current, body.config);
    const name = body.name ?? t.name;
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (name !== t.name) changes.name = { from: t.name, to: name };
    for (const k of new Set([...Object.keys(current), ...Object.keys(config)])) {
      if (!same(current[k], config[k])) changes[`config.${k}`] = { from: current[k] ?? null, to: config[k] ?? null };
    }
    if (Object.keys(changes).length === 0) return view(t);
    const now = new Date().toISOString();
    try {
      await settingsRepo.update(t, { name, config }, now, {
        action: 'settings.updated', actor: { type: 'user', id: m.userId }, target: { type: 'tenant', id: t.id }, changes,
      });
      return view({ ...t, name, config });
    } catch (e) {
      // Another write moved the version: merge our patch onto what it wrote.
      if (!(e instanceof TxConditionFailed)) throw e;
      if (attempt >= 4) throw new Conflict('the settings changed concurrently; try again');
    }
  }
}

/** A new widget key; the old one's lookup is deleted at once (cached widget auth lets it live at most 30 s). */
export async function rotateWidgetKey(m: Membership) {
  for (let attempt = 0; ; attempt++) {
    const t = await tenantOf(m);
    const wk = newWidgetKey();
    const now = new Date().toISOString();
    try {
      await settingsRepo.rotateWidgetKey(t, wk, now, {
        action: 'widget_key.rotated', actor: { type: 'user', id: m.userId }, target: { type: 'tenant', id: t.id },
        // Only that it changed and when: no key, hash or preview goes into the audit log.
        changes: { widgetKeyCreatedAt: { from: t.widgetKeyCreatedAt, to: now } },
      });
      return { widgetKey: wk.key };
    } catch (e) {
      if (!(e instanceof TxConditionFailed) || attempt >= 3) throw e;
    }
  }
}
