import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/integrations.ts';
import { createIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute(api.createIntegration, async ({ tenantId, actor, body }) => createIntegration(tenantId, actor, body));
