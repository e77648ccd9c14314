import type { AuditCategory } from '#shared/core/vocabulary.ts';
import type { AuditEntry } from './items.ts';
import { clean } from './items.ts';
import { keys } from './keys.ts';
import { queryPage, type Page } from './lists.ts';

// Audit entries: newest first on gsi1 (sk = aud_<ulid>), by category on gsi2. A ticket's entries are stored in the ticket's partition (see keys.audit).

export const asAudit = (i: Record<string, unknown>): AuditEntry => {
  const { id, category, action, actor, target, changes, createdAt } = clean<AuditEntry>(i);
  return { id, category, action, actor, target, changes, createdAt };
};

export const auditRepo = {
  async list(tenantId: string, filters: { category?: AuditCategory }, limit: number, cursor?: string): Promise<Page<AuditEntry>> {
    const q = filters.category
      ? { index: 'gsi2' as const, partition: { name: 'gsi2pk', value: keys.auditByCategoryIndex(tenantId, filters.category).gsi2pk } }
      : { index: 'gsi1' as const, partition: { name: 'gsi1pk', value: keys.auditIndex(tenantId).gsi1pk } };
    const page = await queryPage(q, { tenantId, list: 'audit', filters }, limit, cursor);
    return { items: page.items.map(asAudit), nextCursor: page.nextCursor };
  },

};
