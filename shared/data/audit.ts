import type { AuditCategory, AuditEntry } from './items.ts';
import { clean } from './items.ts';
import { keys } from './keys.ts';
import { queryAll, queryPage, type Page } from './lists.ts';

// Audit entries: newest first on the tenant's audit partition (sk = aud_<ulid>), by category on
// gsi2, and per target (oldest first) on gsi3.

const asAudit = (i: Record<string, unknown>): AuditEntry => {
  const { id, category, action, actor, target, changes, createdAt } = clean<AuditEntry>(i);
  return { id, category, action, actor, target, changes, createdAt };
};

export const auditRepo = {
  async list(tenantId: string, filters: { category?: AuditCategory }, limit: number, cursor?: string): Promise<Page<AuditEntry>> {
    const q = filters.category
      ? { index: 'gsi2' as const, partition: { name: 'gsi2pk', value: keys.auditByCategoryIndex(tenantId, filters.category).gsi2pk } }
      : { partition: { name: 'pk', value: keys.auditPartition(tenantId) } };
    const page = await queryPage(q, { tenantId, list: 'audit', filters }, limit, cursor);
    return { items: page.items.map(asAudit), nextCursor: page.nextCursor };
  },

  /** Audit entries of one target, oldest first. */
  async ofTarget(tenantId: string, type: string, id: string): Promise<AuditEntry[]> {
    const items = await queryAll({
      index: 'gsi3', partition: { name: 'gsi3pk', value: keys.auditByTargetIndex(tenantId, type, id).gsi3pk }, descending: false,
    });
    return items.map(asAudit);
  },
};
