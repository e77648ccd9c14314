import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/deliveries.ts';
import { sendTest } from '#shared/domain/events-out/deliveries.ts';

export const handler = adminRoute(api.testIntegration, async ({ tenantId, params }) => sendTest(tenantId, params.id));
