import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/deliveries.ts';
import { recentCalls } from '#shared/domain/events-out/actions.ts';

export const handler = adminRoute(api.listActionCalls, async ({ tenantId, params }) =>
  recentCalls(tenantId, params.id),
);
