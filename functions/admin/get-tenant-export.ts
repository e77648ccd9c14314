import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tenant.ts';
import { exportStatus } from '#shared/domain/privacy/portability.ts';

export const handler = adminRoute(api.getTenantExport, async ({ tenantId, params }) =>
  exportStatus(tenantId, params.id),
);
