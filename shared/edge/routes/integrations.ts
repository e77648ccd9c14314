import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { EVENT_TYPES, INTEGRATION_STATUSES, INTEGRATION_TYPES } from '#shared/core/vocabulary.ts';
import { SLACK_EVENT_TYPES } from '#shared/domain/events-out/slack.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { EmptyQuery, keptJson, shownName, text } from '../schema.ts';

// Request and response schemas of /integrations; the OpenAPI document is generated from them.

// Integration and delivery ids are opaque: any unknown one is 404 (the domain answers it), never 400.
export const IntegrationParams = z.strictObject({ id: z.string() });

export const IntegrationBody = z
  .strictObject({
    type: z.enum(INTEGRATION_TYPES, { message: `must be one of ${INTEGRATION_TYPES.join(', ')}` }),
    name: shownName(1, 100),
    config: z
      ._default(keptJson('must be a JSON object'), {})
      .check(z.refine((c) => JSON.stringify(c).length <= 8192, 'must be at most 8 KiB as JSON')),
    credentials: z._default(
      z
        .record(z.string().check(z.minLength(1), z.maxLength(64)), text(1, 4096), {
          message: 'must be an object of strings',
        })
        .check(z.refine((c) => Object.keys(c).length <= 20, 'must have at most 20 entries')),
      {},
    ),
    status: z.optional(
      z
        .enum(INTEGRATION_STATUSES, { message: `must be ${INTEGRATION_STATUSES.join(' or ')}` })
        .check(
          z.describe(
            '`disabled` receives nothing; the service sets it after a 410 Gone or 5 days of failed deliveries. Default: active on creation, unchanged on replacement',
          ),
        ),
    ),
  })
  .check(
    z.superRefine((b, ctx) => {
      // Not delivered yet: refused rather than accepted and silently doing nothing (docs/API.md: nothing is accepted that would silently do nothing).
      if (b.type === 'zendesk' || b.type === 'email') {
        ctx.addIssue({
          code: 'custom',
          path: ['type'],
          message: `${b.type} integrations are not delivered yet; use webhook or slack`,
        });
        return;
      }
      // An action receives no events: its config is checked by the domain (url, timeoutMs).
      if (b.type === 'action') return;
      const allowed: readonly string[] = b.type === 'webhook' ? EVENT_TYPES : SLACK_EVENT_TYPES;
      const events = b.config.events;
      if (
        events !== undefined &&
        (!Array.isArray(events) ||
          events.length === 0 ||
          events.some((e) => !allowed.includes(e as string)) ||
          new Set(events).size !== events.length)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['config', 'events'],
          message: `must be a non-empty list of distinct event types among ${allowed.join(', ')}`,
        });
      }
      if (b.type === 'webhook' && typeof b.config.url !== 'string')
        ctx.addIssue({ code: 'custom', path: ['config', 'url'], message: 'is required for a webhook (an https URL)' });
    }),
  );

export const Integration = z.object({
  id: z.string(),
  type: z.enum(INTEGRATION_TYPES),
  name: z.string(),
  status: z.enum(INTEGRATION_STATUSES),
  config: z.record(z.string(), z.unknown()),
  credentials: z
    .record(z.string(), z.string().check(z.regex(/^\*{4}/)))
    .check(z.describe('each value masked: **** and its last 4 characters')),
  createdAt: z.iso.datetime(),
});
export const IntegrationList = z.object({ items: z.array(Integration) });
export const CreatedIntegration = z.object({
  ...Integration.shape,
  credentials: z
    .record(z.string(), z.string())
    .check(
      z.describe(
        "each value masked (**** and its last 4 characters), except a webhook's or an action's `secret` that the service generated: shown in full here, once",
      ),
    ),
});

export const listIntegrations = declareAdmin('GET', '/integrations', 'list-integrations', 'admin', {
  table: 'read',
  query: EmptyQuery,
  response: IntegrationList,
  status: 200,
  summary: 'Every integration, credentials masked',
});

export const createIntegration = declareAdmin('POST', '/integrations', 'create-integration', 'admin', {
  table: 'write',
  kms: true,
  body: IntegrationBody,
  status: 201,
  response: CreatedIntegration,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Create an integration',
  description:
    'Types `webhook` (`config.url`, `config.events` default all, `credentials.secret` optional) and `slack` ' +
    '(`credentials.webhookUrl`, an https://hooks.slack.com/ URL; it posts escalations and ticket status changes). ' +
    '`zendesk` and `email` are not delivered yet and are refused (400). A webhook URL must be https and not point at ' +
    'localhost or a loopback, private, link-local or documentation address, nor an IPv6 form that carries an IPv4 address ' +
    '(`::/96`, IPv4-mapped, NAT64, 6to4, Teredo); no URL may carry credentials (userinfo). ' +
    `At most ${LIMITS.integrationsPerTenant} integrations per tenant: the ${LIMITS.integrationsPerTenant + 1}th is 409 \`CONFLICT\`. ` +
    'A webhook without `credentials.secret` gets ' +
    'one (`whsec_` + base64 of 32 random bytes), returned in full in this response only. ' +
    'Type `action` (docs/ACTIONS.md): the team\'s endpoint that an intent with `action: "call"` asks, `config: { url, timeoutMs }` ' +
    "(`url` under the same rules as a webhook's; `timeoutMs` 500 to 10,000, default 3,000; no other key), `credentials.secret` " +
    "as a webhook's (generated when omitted, shown once); it receives no events.",
});

export const updateIntegration = declareAdmin('PUT', '/integrations/{id}', 'update-integration', 'admin', {
  table: 'write',
  kms: true,
  params: IntegrationParams,
  body: IntegrationBody,
  status: 200,
  response: Integration,
  summary: 'Replace an integration',
  description:
    'A full replacement, except that empty `credentials` keep the stored ones and an absent `status` keeps the ' +
    'current one. Set `status: "active"` to resume a disabled integration.',
});

export const deleteIntegration = declareAdmin('DELETE', '/integrations/{id}', 'delete-integration', 'admin', {
  table: 'write',
  params: IntegrationParams,
  status: 204,
  summary: 'Delete an integration',
});

export const routes = [listIntegrations, createIntegration, updateIntegration, deleteIntegration];
