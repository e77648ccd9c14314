import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/audit.ts';
import { listAudit } from '#shared/domain/audit.ts';

export const handler = adminRoute(api.listAudit, async ({ tenantId, query }) => listAudit(tenantId, query));
