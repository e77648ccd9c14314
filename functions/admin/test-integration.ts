import { adminRoute, withStatus } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/deliveries.ts';
import { testIntegration } from '#shared/domain/events-out/actions.ts';

// A webhook's ping is queued (202); an action is tried at once (200).
export const handler = adminRoute(api.testIntegration, async ({ tenantId, params, body }) => {
  const r = await testIntegration(tenantId, params.id, body);
  return r.tried ? withStatus(200, r.tried) : r.queued;
});
