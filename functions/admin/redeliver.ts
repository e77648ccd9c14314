import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/deliveries.ts';
import { redeliver } from '#shared/domain/deliveries.ts';

export const handler = adminRoute(api.redeliver, async ({ tenantId, params }) => redeliver(tenantId, params.id, params.deliveryId));
