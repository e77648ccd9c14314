import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { retrying } from '#shared/data/tx.ts';
import { retentionRepo } from '#shared/data/retention.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { NotFound, ValidationError, fieldError } from '#shared/core/errors.ts';
import * as z from 'zod/mini';
import { PRIORITIES, WIDGET_POSITIONS } from '#shared/core/vocabulary.ts';
import { nameProblem } from '#shared/core/names.ts';
import { mergePatch } from '#shared/domain/merge-patch.ts';
import { newWidgetKey } from './widget-keys.ts';
import { events } from '#shared/domain/events.ts';
import { mask } from '#shared/domain/mask.ts';
import { BusinessHoursSchema } from './business-hours.ts';
import { sameValue } from '#shared/domain/audit-value.ts';
import { newIdentitySecret } from './identity.ts';
import { ensureSlug, inboundAddress } from './slug.ts';
import { EmailConfig, emailSettings } from './email-config.ts';
import { clock } from '#shared/core/clock.ts';
import { senderStatus } from '#shared/data/ses-identities.ts';

export const MAX_CONFIG_BYTES = 16 * 1024;

const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
const OBJECT = { message: 'must be an object' };
const HEX_COLOUR = 'must be a CSS hex colour, #rgb or #rrggbb';
const NEW_CONVERSATIONS = 'must be a whole number from 1 to 10000';
const RETENTION_DAYS = 'must be a whole number of days from 30 to 3650';

/** `widget.theme` as an object: the keys the widget reads. */
const Theme = z.looseObject({
  color: z.optional(
    z.string({ message: HEX_COLOUR }).check(z.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, HEX_COLOUR)),
  ),
  position: z.optional(z.enum(WIDGET_POSITIONS, { message: `must be ${WIDGET_POSITIONS.join(' or ')}` })),
  title: z.optional(
    z.string({ message: 'must be a string' }).check(
      z.maxLength(100, 'must be at most 100 characters'),
      z.superRefine((t, ctx) => {
        const why = t.trim() ? nameProblem(t) : null;
        if (why) ctx.addIssue({ code: 'custom', message: why });
      }),
    ),
  ),
});

/** The config keys the service understands; unknown sections and keys are kept as given. */
export const KnownConfig = z.looseObject({
  assistant: z.optional(
    z.looseObject(
      {
        greeting: z.optional(
          z.string({ message: 'must be a string' }).check(z.maxLength(2000, 'must be at most 2000 characters')),
        ),
        fallbackMessage: z.optional(
          z.string({ message: 'must be a string' }).check(z.maxLength(2000, 'must be at most 2000 characters')),
        ),
      },
      OBJECT,
    ),
  ),
  nlu: z.optional(
    z.looseObject(
      {
        confidenceThreshold: z.optional(
          z
            .number({ message: 'must be a number from 0 to 1' })
            .check(z.gte(0, 'must be a number from 0 to 1'), z.lte(1, 'must be a number from 0 to 1')),
        ),
      },
      OBJECT,
    ),
  ),
  knowledge: z.optional(
    z.looseObject(
      {
        enabled: z.optional(z.boolean({ message: 'must be true or false' })),
        threshold: z.optional(
          z
            .number({ message: 'must be a number from 0 to 1' })
            .check(z.gte(0, 'must be a number from 0 to 1'), z.lte(1, 'must be a number from 0 to 1')),
        ),
      },
      OBJECT,
    ),
  ),
  escalation: z.optional(
    z.looseObject(
      {
        defaultPriority: z.optional(z.enum(PRIORITIES, { message: `must be one of ${PRIORITIES.join(', ')}` })),
      },
      OBJECT,
    ),
  ),
  widget: z.optional(
    z.looseObject(
      {
        allowedOrigins: z.optional(
          z
            .array(
              z
                .string()
                .check(
                  z.regex(
                    ORIGIN,
                    'must be an origin such as https://shop.example (scheme, host, optional port; no path)',
                  ),
                ),
              { message: 'must be a list of origins' },
            )
            .check(z.maxLength(100, 'must have at most 100 origins')),
        ),
        // A string names a theme as before; an object's known keys are checked, each failure at its own path.
        theme: z.optional(
          z.unknown().check(
            z.superRefine((t, ctx) => {
              if (typeof t === 'string') return;
              if (t === null || typeof t !== 'object' || Array.isArray(t)) {
                ctx.addIssue({ code: 'custom', message: 'must be an object or a string' });
                return;
              }
              const r = Theme.safeParse(t);
              if (!r.success)
                for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path });
            }),
          ),
        ),
        newConversationsPerMinute: z.optional(
          z
            .number({ message: NEW_CONVERSATIONS })
            .check(z.int(NEW_CONVERSATIONS), z.gte(1, NEW_CONVERSATIONS), z.lte(10_000, NEW_CONVERSATIONS)),
        ),
        replyTime: z.optional(
          z.string({ message: 'must be a string' }).check(z.trim(), z.maxLength(80, 'must be at most 80 characters')),
        ),
      },
      OBJECT,
    ),
  ),
  identity: z.optional(
    z.strictObject(
      {
        required: z.optional(z.boolean({ message: 'must be true or false' })),
      },
      { message: 'must be an object { required }; the secret is made by POST /settings/identity-secret/rotate' },
    ),
  ),
  businessHours: z.optional(BusinessHoursSchema),
  retention: z.optional(
    z.looseObject(
      {
        conversationDays: z.optional(
          z
            .number({ message: RETENTION_DAYS })
            .check(z.int(RETENTION_DAYS), z.gte(30, RETENTION_DAYS), z.lte(3650, RETENTION_DAYS)),
        ),
      },
      OBJECT,
    ),
  ),
  email: z.optional(EmailConfig),
});

/** How long the tenant keeps conversations, or null: for ever. */
export const retentionDays = (config: Record<string, unknown>): number | null =>
  (config.retention as { conversationDays?: number } | undefined)?.conversationDays ?? null;

/** The identity secret is never in `config` as kept; the view shows it there masked, beside `required`. */
const view = (t: Tenant) => {
  const kept = t.config ?? {};
  // The inbound address is derived from the slug, shown with the email settings and never kept.
  const config = t.slug
    ? { ...kept, email: { ...(kept.email as object | undefined), inboundAddress: inboundAddress(t.slug) } }
    : kept;
  const identity = t.identitySecret
    ? {
        ...(config.identity as object | undefined),
        secret: mask(t.identitySecret),
        secretCreatedAt: t.identitySecretCreatedAt,
      }
    : undefined;
  return {
    tenant: { id: t.id, name: t.name },
    config: identity ? { ...config, identity } : config,
    widgetKey: { preview: t.widgetKeyPreview, createdAt: t.widgetKeyCreatedAt },
  };
};

async function tenantOf(tenantId: string): Promise<Tenant> {
  const t = await tenantsRepo.get(tenantId, true);
  if (!t) throw new NotFound('tenant');
  return t;
}

export const getSettings = async (tenantId: string) => {
  const t = await tenantOf(tenantId);
  const shown = view({ ...t, slug: await ensureSlug(t) });
  // The sending address and SES's word on it; without `fromAddress`, replies go from the inbound address (the stack's verified domain).
  const from = emailSettings(t.config ?? {}).fromAddress;
  return { ...shown, emailSender: from ? { address: from, status: await senderStatus(from) } : null };
};

/** The merged config, or a 400 naming the failing known key or the size limit. */
export function mergeConfig(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = mergePatch(current, patch) as Record<string, unknown>;
  const r = KnownConfig.safeParse(merged);
  if (!r.success) {
    const errors = r.error.issues.map((i) => ({
      path: ['config', ...i.path.map(String)].join('.'),
      message: i.message,
    }));
    throw new ValidationError(`${errors[0]!.path} ${errors[0]!.message}`, errors);
  }
  // What was checked is what is kept: `widget.replyTime` trimmed (a blank one is none).
  const checked = r.data as Record<string, unknown>;
  if (Buffer.byteLength(JSON.stringify(checked)) > MAX_CONFIG_BYTES)
    throw fieldError('config', `must be at most ${MAX_CONFIG_BYTES} bytes as JSON once merged`);
  return checked;
}

/** A config sent back as GET showed it carries the masked secret: that part is dropped; any other value is refused. */
function withoutShownSecret(t: Tenant, given: Record<string, unknown>): Record<string, unknown> {
  const patch = withoutInboundAddress(t, given);
  const shown = view(t).config.identity as Record<string, unknown> | undefined;
  const sent = patch.identity;
  if (!shown || !sent || typeof sent !== 'object' || Array.isArray(sent)) return patch;
  const identity = Object.fromEntries(
    Object.entries(sent).filter(([k, v]) => !((k === 'secret' || k === 'secretCreatedAt') && v === shown[k])),
  );
  return { ...patch, identity };
}

/** Likewise the inbound address GET shows: sent back unchanged it is dropped; another value is refused by the schema. */
function withoutInboundAddress(t: Tenant, patch: Record<string, unknown>): Record<string, unknown> {
  const sent = patch.email;
  if (!t.slug || !sent || typeof sent !== 'object' || Array.isArray(sent)) return patch;
  const { inboundAddress: given, ...email } = sent as Record<string, unknown>;
  return given === inboundAddress(t.slug) ? { ...patch, email } : patch;
}

export async function putSettings(
  tenantId: string,
  actor: Actor,
  body: { name?: string | undefined; config?: Record<string, unknown> | undefined },
) {
  // Another write moved the version: merge our patch onto what it wrote.
  return retrying(
    async () => {
      const t = await tenantOf(tenantId);
      const current = t.config ?? {};
      const config = body.config === undefined ? current : mergeConfig(current, withoutShownSecret(t, body.config));
      const name = body.name ?? t.name;
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      if (name !== t.name) changes.name = { from: t.name, to: name };
      for (const k of new Set([...Object.keys(current), ...Object.keys(config)])) {
        if (!sameValue(current[k], config[k]))
          changes[`config.${k}`] = { from: current[k] ?? null, to: config[k] ?? null };
      }
      if (Object.keys(changes).length === 0) return view(t);
      const now = clock.iso();
      const days = retentionDays(config);
      await tenantsRepo.update(
        t,
        { name, config },
        now,
        {
          action: 'settings.updated',
          actor,
          target: { type: 'tenant', id: t.id },
          changes,
        },
        days === retentionDays(current) ? [] : [retentionRepo.tx.register(t.id, days)],
      );
      return view({ ...t, name, config });
    },
    { attempts: 5, conflict: 'the settings changed concurrently; try again' },
  );
}

/** A new identity secret, shown once; the old one stops verifying at once (nothing caches it). */
export async function rotateIdentitySecret(tenantId: string, actor: Actor) {
  return retrying(
    async () => {
      const t = await tenantOf(tenantId);
      const secret = newIdentitySecret();
      const now = clock.iso();
      await tenantsRepo.rotateIdentitySecret(t, secret, now, {
        action: 'identity_secret.rotated',
        actor,
        target: { type: 'tenant', id: t.id },
        changes: { identitySecretCreatedAt: { from: t.identitySecretCreatedAt ?? null, to: now } },
      });
      return { secret };
    },
    { attempts: 4, conflict: 'the identity secret changed concurrently; try again' },
  );
}

/** A new widget key; the old one's lookup is deleted at once (cached widget auth lets it live at most 30 s). */
export async function rotateWidgetKey(tenantId: string, actor: Actor) {
  const wk = await retrying(
    async () => {
      const t = await tenantOf(tenantId);
      const next = newWidgetKey();
      const now = clock.iso();
      await tenantsRepo.rotateWidgetKey(
        t,
        next,
        now,
        {
          action: 'widget_key.rotated',
          actor,
          target: { type: 'tenant', id: t.id },
          // Only that it changed and when: no key, hash or preview goes into the audit log.
          changes: { widgetKeyCreatedAt: { from: t.widgetKeyCreatedAt, to: now } },
        },
        [events.widgetKeyRotated(t.id, now)],
      );
      return next;
    },
    { attempts: 4, conflict: 'the widget key changed concurrently; try again' },
  );
  // Live sockets opened with an older key are refused at the upgrade (it reads the key fresh); the
  // rotation's outbox signal has the dispatcher, which holds the management grant, close those
  // already open, within a second or so of the commit; one that slipped in between is closed before
  // its next event.
  return { widgetKey: wk.key };
}
