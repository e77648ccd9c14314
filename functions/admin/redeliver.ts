import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/deliveries.ts';
import { redeliver } from '#shared/domain/events-out/deliveries.ts';

export const handler = adminRoute(api.redeliver, async ({ tenantId, params }) =>
  redeliver(tenantId, params.id, params.deliveryId),
);
