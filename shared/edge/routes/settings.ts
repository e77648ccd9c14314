import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { EmptyQuery, keptJson, shownName } from '../schema.ts';

// Request and response schemas of /settings; the OpenAPI document is generated from them.

export const PutSettingsBody = z
  .strictObject({
    name: z.optional(shownName(1, 100)),
    // A JSON Merge Patch of the config; its known keys are checked after merging (KnownConfig).
    config: z.optional(keptJson('must be a JSON object')),
  })
  .check(
    z.refine((b) => b.name !== undefined || b.config !== undefined, {
      message: 'give name or config (or both)',
      path: [],
    }),
  );

export const Settings = z.object({
  tenant: z.object({ id: z.uuid(), name: z.string() }),
  config: z.record(z.string(), z.unknown()),
  widgetKey: z.object({ preview: z.string(), createdAt: z.iso.datetime() }),
  emailSender: z.optional(
    z.nullable(
      z.object({
        address: z.string(),
        status: z
          .enum(['verified', 'pending', 'failed', 'missing', 'unknown'])
          .check(
            z.describe(
              "SES's verification of `config.email.fromAddress` (its own identity, else its domain's): `verified` sends; `pending` awaits its DNS records; `failed` SES gave up; `missing` not added to SES; `unknown` SES did not answer",
            ),
          ),
      }),
    ),
  ),
});
export const WidgetKey = z.object({ widgetKey: z.string().check(z.regex(/^wk_/)) });

export const getSettings = declareAdmin('GET', '/settings', 'get-settings', 'admin', {
  table: 'read',
  query: EmptyQuery,
  response: Settings,
  status: 200,
  sesIdentities: true,
  summary: 'Tenant name, configuration and widget key preview',
  description:
    '`emailSender` (here only, null without `config.email.fromAddress`) says whether SES will send from that address.',
});

export const putSettings = declareAdmin('PUT', '/settings', 'put-settings', 'admin', {
  table: 'write',
  body: PutSettingsBody,
  response: Settings,
  status: 200,
  summary: 'Change the tenant name or configuration',
  description:
    '`config` is merged as a JSON Merge Patch (RFC 7396): objects merge, `null` deletes a key, anything else replaces. ' +
    'At most 16 KiB as UTF-8 JSON. `identity.required` refuses chat messages without a verified visitor. `businessHours`: ' +
    '`{ timezone (IANA), weekly: { mon..sun: at most 3 ["HH:MM","HH:MM"] }, holidays: at most 100 YYYY-MM-DD }`; a range whose ' +
    'end is not after its start runs past midnight into the next day; ranges may not overlap; absent means always open. ' +
    '`widget.replyTime`: at most 80 characters.',
});

export const rotateWidgetKey = declareAdmin('POST', '/settings/widget-key', 'rotate-widget-key', 'owner', {
  table: 'write',
  status: 201,
  response: WidgetKey,
  idempotent: true,
  conflicts: ['IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Issue a new widget key',
  description:
    'The old key stops working within 60 seconds; a live connection opened with it is refused from now on, and those already open are closed within seconds.',
});

export const IdentitySecret = z.object({
  secret: z.string().check(z.describe('shown here once; `GET /settings` shows it masked')),
});

export const rotateIdentitySecret = declareAdmin(
  'POST',
  '/settings/identity-secret/rotate',
  'rotate-identity-secret',
  'admin',
  {
    table: 'write',
    status: 201,
    response: IdentitySecret,
    idempotent: true,
    conflicts: ['IDEMPOTENCY_IN_PROGRESS'],
    summary: 'Make a new identity secret for verified visitors',
    description:
      "The site's server signs each visitor's `userId` with it (lowercase hex HMAC-SHA256). The old secret stops " +
      'verifying at once. Audited (`settings`, `identity_secret.rotated`), without the secret.',
  },
);

export const Suppressions = z.object({
  items: z
    .array(
      z.object({
        email: z.string(),
        reason: z.enum(['bounce', 'complaint']),
        createdAt: z.iso.datetime(),
      }),
    )
    .check(
      z.describe('addresses that bounced hard or complained: replies to them are refused (409 `EMAIL_SUPPRESSED`)'),
    ),
});

export const listSuppressions = declareAdmin('GET', '/settings/email/suppressions', 'list-suppressions', 'agent', {
  table: 'read',
  query: EmptyQuery,
  response: Suppressions,
  status: 200,
  summary: 'Email addresses the tenant no longer sends to',
  description:
    "A hard bounce or a complaint (from SES's events) suppresses the address for the tenant; at most 1,000, newest last.",
});

export const routes = [getSettings, putSettings, rotateWidgetKey, rotateIdentitySecret, listSuppressions];
