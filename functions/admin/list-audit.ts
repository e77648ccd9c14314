import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { ListAuditQuery } from '#shared/http/schemas/audit.ts';
import { listAudit } from '#shared/domain/audit.ts';

export const handler = adminRoute(
  { query: ListAuditQuery },
  async ({ membership, query }) => ok(await listAudit(membership.tenantId, query)),
);
