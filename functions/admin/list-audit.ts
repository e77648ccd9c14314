import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/audit.ts';
import { listAudit } from '#shared/domain/reports/audit.ts';

export const handler = adminRoute(api.listAudit, async ({ tenantId, query }) => listAudit(tenantId, query));
