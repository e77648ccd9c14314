import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/deliveries.ts';
import { listDeliveries } from '#shared/domain/deliveries.ts';

export const handler = adminRoute(api.listDeliveries, async ({ tenantId, params, query }) => listDeliveries(tenantId, params.id, query));
