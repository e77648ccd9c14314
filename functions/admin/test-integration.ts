import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/deliveries.ts';
import { sendTest } from '#shared/domain/deliveries.ts';

export const handler = adminRoute(api.testIntegration, async ({ tenantId, params }) => sendTest(tenantId, params.id));
