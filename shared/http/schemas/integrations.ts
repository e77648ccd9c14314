import * as z from 'zod';
import { text } from '../schema.ts';

// Request and response schemas of /integrations; the OpenAPI document is generated from them.
const TYPES = ['webhook', 'slack', 'zendesk', 'email'] as const;

export const IntegrationParams = z.strictObject({
  id: z.string().regex(/^int_[A-Za-z0-9]{1,64}$/, 'must be an integration id'),
});

export const IntegrationBody = z.strictObject({
  type: z.enum(TYPES, { message: `must be one of ${TYPES.join(', ')}` }),
  name: text(1, 100),
  config: z.record(z.string(), z.unknown(), { message: 'must be a JSON object' }).default({})
    .refine((c) => JSON.stringify(c).length <= 8192, 'must be at most 8 KiB as JSON'),
  credentials: z.record(z.string().min(1).max(64), text(1, 4096), { message: 'must be an object of strings' })
    .refine((c) => Object.keys(c).length <= 20, 'must have at most 20 entries').default({}),
}).superRefine((b, ctx) => {
  if (b.type !== 'webhook') return;
  if (typeof b.config.url !== 'string') ctx.addIssue({ code: 'custom', path: ['config', 'url'], message: 'is required for a webhook (an https URL)' });
  if (!b.credentials.secret) ctx.addIssue({ code: 'custom', path: ['credentials', 'secret'], message: 'is required for a webhook (its signing secret)' });
});
export type IntegrationInput = z.output<typeof IntegrationBody>;

export const Integration = z.object({
  id: z.string(), type: z.enum(TYPES), name: z.string(), status: z.literal('active'),
  config: z.record(z.string(), z.unknown()),
  credentials: z.record(z.string(), z.string().regex(/^\*{4}/)).describe('each value masked: **** and its last 4 characters'),
  createdAt: z.iso.datetime(),
});
export const IntegrationList = z.object({ items: z.array(Integration) });
