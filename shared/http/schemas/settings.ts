import * as z from 'zod/mini';
import { text } from '../schema.ts';

// Request and response schemas of /settings; the OpenAPI document is generated from them.

export const PutSettingsBody = z.strictObject({
  name: z.optional(text(1, 100)),
  // A JSON Merge Patch of the config; its known keys are checked after merging (KnownConfig).
  config: z.optional(z.record(z.string(), z.unknown(), { message: 'must be a JSON object' })),
}).check(z.refine((b) => b.name !== undefined || b.config !== undefined, { message: 'give name or config (or both)', path: [] }));

const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
const OBJECT = { message: 'must be an object' };

/** The config keys the service understands; unknown sections and keys are kept as given. */
export const KnownConfig = z.looseObject({
  assistant: z.optional(z.looseObject({
    greeting: z.optional(z.string({ message: 'must be a string' }).check(z.maxLength(2000, 'must be at most 2000 characters'))),
    fallbackMessage: z.optional(z.string({ message: 'must be a string' }).check(z.maxLength(2000, 'must be at most 2000 characters'))),
  }, OBJECT)),
  nlu: z.optional(z.looseObject({
    confidenceThreshold: z.optional(z.number({ message: 'must be a number from 0 to 1' })
      .check(z.gte(0, 'must be a number from 0 to 1'), z.lte(1, 'must be a number from 0 to 1'))),
  }, OBJECT)),
  escalation: z.optional(z.looseObject({
    defaultPriority: z.optional(z.enum(['low', 'medium', 'high', 'urgent'], { message: 'must be one of low, medium, high, urgent' })),
  }, OBJECT)),
  widget: z.optional(z.looseObject({
    allowedOrigins: z.optional(z.array(
      z.string().check(z.regex(ORIGIN, 'must be an origin such as https://shop.example (scheme, host, optional port; no path)')),
      { message: 'must be a list of origins' },
    ).check(z.maxLength(100, 'must have at most 100 origins'))),
    theme: z.optional(z.union([z.string(), z.record(z.string(), z.unknown())], { message: 'must be an object or a string' })),
  }, OBJECT)),
});

export const Settings = z.object({
  tenant: z.object({ id: z.uuid(), name: z.string() }),
  config: z.record(z.string(), z.unknown()),
  widgetKey: z.object({ preview: z.string(), createdAt: z.iso.datetime() }),
});
export const WidgetKey = z.object({ widgetKey: z.string().check(z.regex(/^wk_/)) });
