import * as z from 'zod';
import { text } from '../schema.ts';

// Request and response schemas of /settings; the OpenAPI document is generated from them.

export const PutSettingsBody = z.strictObject({
  name: text(1, 100).optional(),
  // A JSON Merge Patch of the config; its known keys are checked after merging (KnownConfig).
  config: z.record(z.string(), z.unknown(), { message: 'must be a JSON object' }).optional(),
}).refine((b) => b.name !== undefined || b.config !== undefined, { message: 'give name or config (or both)', path: [] });

const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** The config keys the service understands; unknown sections and keys are kept as given. */
export const KnownConfig = z.looseObject({
  assistant: z.looseObject({
    greeting: z.string({ message: 'must be a string' }).max(2000, 'must be at most 2000 characters').optional(),
    fallbackMessage: z.string({ message: 'must be a string' }).max(2000, 'must be at most 2000 characters').optional(),
  }, { message: 'must be an object' }).optional(),
  nlu: z.looseObject({
    confidenceThreshold: z.number({ message: 'must be a number from 0 to 1' }).min(0, 'must be a number from 0 to 1').max(1, 'must be a number from 0 to 1').optional(),
  }, { message: 'must be an object' }).optional(),
  escalation: z.looseObject({
    defaultPriority: z.enum(['low', 'medium', 'high', 'urgent'], { message: 'must be one of low, medium, high, urgent' }).optional(),
  }, { message: 'must be an object' }).optional(),
  widget: z.looseObject({
    allowedOrigins: z.array(z.string().regex(ORIGIN, 'must be an origin such as https://shop.example (scheme, host, optional port; no path)'), { message: 'must be a list of origins' })
      .max(100, 'must have at most 100 origins').optional(),
    theme: z.union([z.string(), z.record(z.string(), z.unknown())], { message: 'must be an object or a string' }).optional(),
  }, { message: 'must be an object' }).optional(),
});

export const Settings = z.object({
  tenant: z.object({ id: z.uuid(), name: z.string() }),
  config: z.record(z.string(), z.unknown()),
  widgetKey: z.object({ preview: z.string(), createdAt: z.iso.datetime() }),
});
export const WidgetKey = z.object({ widgetKey: z.string().regex(/^wk_/) });
