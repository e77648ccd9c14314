import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tenant.ts';
import { startExport } from '#shared/domain/privacy/portability.ts';

export const handler = adminRoute(api.exportTenant, async ({ tenantId, actor }) => startExport(tenantId, actor));
