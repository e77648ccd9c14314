import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/customers.ts';
import { exportCustomer, type CustomerLookup } from '#shared/domain/privacy/privacy.ts';

export const handler = adminRoute(api.exportCustomer, async ({ tenantId, actor, body }) =>
  exportCustomer(tenantId, actor, body as CustomerLookup),
);
