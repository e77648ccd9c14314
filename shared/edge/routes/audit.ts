import * as z from 'zod/mini';
import { ACTOR_TYPES, AUDIT_CATEGORIES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';

export const AuditCategory = z.enum(AUDIT_CATEGORIES);
export const ListAuditQuery = z.strictObject({ category: z.optional(AuditCategory), ...pageQuery });

export const AuditEntry = z.object({
  id: z.string(), category: AuditCategory, action: z.string(),
  actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string() }),
  target: z.object({ type: z.string(), id: z.string() }),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  createdAt: Timestamp,
});
export const AuditPage = Page(AuditEntry);

export const listAudit = declareAdmin('GET', '/audit', 'list-audit', 'admin', {
  table: 'read', query: ListAuditQuery, response: AuditPage, status: 200, summary: 'Audit entries, newest first'
});

export const routes = [listAudit];
