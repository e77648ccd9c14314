import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/integrations.ts';
import { replaceIntegration } from '#shared/domain/events-out/integrations.ts';

export const handler = adminRoute(api.updateIntegration, async ({ tenantId, actor, params, body }) =>
  replaceIntegration(tenantId, actor, params.id, body),
);
