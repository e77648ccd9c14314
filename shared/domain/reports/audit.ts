import { auditRepo } from '#shared/data/audit.ts';
import type { AuditCategory } from '#shared/core/vocabulary.ts';

export const listAudit = (tenantId: string, q: { category?: AuditCategory; limit: number; cursor?: string }) =>
  auditRepo.list(tenantId, { category: q.category }, q.limit, q.cursor);
