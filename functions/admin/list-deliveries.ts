import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/deliveries.ts';
import { listDeliveries } from '#shared/domain/events-out/deliveries.ts';

export const handler = adminRoute(api.listDeliveries, async ({ tenantId, params, query }) =>
  listDeliveries(tenantId, params.id, query),
);
