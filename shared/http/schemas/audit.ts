import * as z from 'zod/mini';
import { pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';

export const AuditCategory = z.enum(['auth', 'ticket', 'intent', 'integration', 'settings', 'member']);
export const ListAuditQuery = z.strictObject({ category: z.optional(AuditCategory), ...pageQuery });

export const AuditEntry = z.object({
  id: z.string(), category: AuditCategory, action: z.string(),
  actor: z.object({ type: z.enum(['user', 'widget', 'system']), id: z.string() }),
  target: z.object({ type: z.string(), id: z.string() }),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  createdAt: Timestamp,
});
export const AuditPage = Page(AuditEntry);
