import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { INTEGRATION_TYPES } from '#shared/core/vocabulary.ts';
import { EmptyQuery, text } from '../schema.ts';

// Request and response schemas of /integrations; the OpenAPI document is generated from them.

// Integration ids are opaque: an id of any shape that names no integration is 404, never 400.
export const IntegrationParams = z.strictObject({ id: z.string() });

export const IntegrationBody = z.strictObject({
  type: z.enum(INTEGRATION_TYPES, { message: `must be one of ${INTEGRATION_TYPES.join(', ')}` }),
  name: text(1, 100),
  config: z._default(z.record(z.string(), z.unknown(), { message: 'must be a JSON object' }), {})
    .check(z.refine((c) => JSON.stringify(c).length <= 8192, 'must be at most 8 KiB as JSON')),
  credentials: z._default(
    z.record(z.string().check(z.minLength(1), z.maxLength(64)), text(1, 4096), { message: 'must be an object of strings' })
      .check(z.refine((c) => Object.keys(c).length <= 20, 'must have at most 20 entries')),
    {},
  ),
}).check(z.superRefine((b, ctx) => {
  if (b.type !== 'webhook') return;
  if (typeof b.config.url !== 'string') ctx.addIssue({ code: 'custom', path: ['config', 'url'], message: 'is required for a webhook (an https URL)' });
  if (!b.credentials.secret) ctx.addIssue({ code: 'custom', path: ['credentials', 'secret'], message: 'is required for a webhook (its signing secret)' });
}));

export const Integration = z.object({
  id: z.string(), type: z.enum(INTEGRATION_TYPES), name: z.string(), status: z.literal('active'),
  config: z.record(z.string(), z.unknown()),
  credentials: z.record(z.string(), z.string().check(z.regex(/^\*{4}/))).check(z.describe('each value masked: **** and its last 4 characters')),
  createdAt: z.iso.datetime(),
});
export const IntegrationList = z.object({ items: z.array(Integration) });

export const listIntegrations = declareAdmin('GET', '/integrations', 'list-integrations', 'admin', {
  table: 'read', query: EmptyQuery, response: IntegrationList, status: 200, summary: 'Every integration, credentials masked'
});

export const createIntegration = declareAdmin('POST', '/integrations', 'create-integration', 'admin', {
  table: 'write', kms: true, body: IntegrationBody, status: 201, response: Integration, summary: 'Create an integration',
  description: 'A webhook URL must be https and not point at localhost or a loopback, private, link-local or documentation address.',
});

export const updateIntegration = declareAdmin('PUT', '/integrations/{id}', 'update-integration', 'admin', {
  table: 'write', kms: true, params: IntegrationParams, body: IntegrationBody, status: 200, response: Integration, summary: 'Replace an integration'
});

export const deleteIntegration = declareAdmin('DELETE', '/integrations/{id}', 'delete-integration', 'admin', {
  table: 'write', params: IntegrationParams, status: 204, summary: 'Delete an integration'
});

export const routes = [listIntegrations, createIntegration, updateIntegration, deleteIntegration];
