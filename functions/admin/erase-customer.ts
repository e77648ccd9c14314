import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/customers.ts';
import { eraseCustomer, type CustomerLookup } from '#shared/domain/privacy/privacy.ts';

export const handler = adminRoute(api.eraseCustomer, async ({ tenantId, actor, body }) =>
  eraseCustomer(tenantId, actor, body as CustomerLookup),
);
