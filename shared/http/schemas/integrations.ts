import * as z from 'zod/mini';
import { text } from '../schema.ts';

// Request and response schemas of /integrations; the OpenAPI document is generated from them.
const TYPES = ['webhook', 'slack', 'zendesk', 'email'] as const;

export const IntegrationParams = z.strictObject({
  id: z.string().check(z.regex(/^int_[A-Za-z0-9]{1,64}$/, 'must be an integration id')),
});

export const IntegrationBody = z.strictObject({
  type: z.enum(TYPES, { message: `must be one of ${TYPES.join(', ')}` }),
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
export type IntegrationInput = z.output<typeof IntegrationBody>;

export const Integration = z.object({
  id: z.string(), type: z.enum(TYPES), name: z.string(), status: z.literal('active'),
  config: z.record(z.string(), z.unknown()),
  credentials: z.record(z.string(), z.string().check(z.regex(/^\*{4}/))).check(z.describe('each value masked: **** and its last 4 characters')),
  createdAt: z.iso.datetime(),
});
export const IntegrationList = z.object({ items: z.array(Integration) });
