import { auditRepo } from '#shared/data/audit.ts';
import type { AuditCategory } from '#shared/core/vocabulary.ts';
import { namedEntries } from '#shared/domain/tenants/audit-names.ts';

export async function listAudit(tenantId: string, q: { category?: AuditCategory; limit: number; cursor?: string }) {
  const page = await auditRepo.list(tenantId, { category: q.category }, q.limit, q.cursor);
  return { items: (await namedEntries(tenantId, page.items)).entries, nextCursor: page.nextCursor };
}
