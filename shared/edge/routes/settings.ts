import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { EmptyQuery, shownName } from '../schema.ts';

// Request and response schemas of /settings; the OpenAPI document is generated from them.

export const PutSettingsBody = z.strictObject({
  name: z.optional(shownName(1, 100)),
  // A JSON Merge Patch of the config; its known keys are checked after merging (KnownConfig).
  config: z.optional(z.record(z.string(), z.unknown(), { message: 'must be a JSON object' })),
}).check(z.refine((b) => b.name !== undefined || b.config !== undefined, { message: 'give name or config (or both)', path: [] }));

export const Settings = z.object({
  tenant: z.object({ id: z.uuid(), name: z.string() }),
  config: z.record(z.string(), z.unknown()),
  widgetKey: z.object({ preview: z.string(), createdAt: z.iso.datetime() }),
});
export const WidgetKey = z.object({ widgetKey: z.string().check(z.regex(/^wk_/)) });

export const getSettings = declareAdmin('GET', '/settings', 'get-settings', 'admin', {
  table: 'read', query: EmptyQuery, response: Settings, status: 200, summary: 'Tenant name, configuration and widget key preview'
});

export const putSettings = declareAdmin('PUT', '/settings', 'put-settings', 'admin', {
  table: 'write', body: PutSettingsBody, response: Settings, status: 200, summary: 'Change the tenant name or configuration',
  description: '`config` is merged as a JSON Merge Patch (RFC 7396): objects merge, `null` deletes a key, anything else replaces. '
    + 'At most 16 KiB as UTF-8 JSON.',
});

export const rotateWidgetKey = declareAdmin('POST', '/settings/widget-key', 'rotate-widget-key', 'owner', {
  table: 'write', status: 201, response: WidgetKey, summary: 'Issue a new widget key',
  description: 'The old key stops working within 60 seconds; a live connection opened with it is refused from now on and closed before any further event reaches it.',
});

export const routes = [getSettings, putSettings, rotateWidgetKey];
