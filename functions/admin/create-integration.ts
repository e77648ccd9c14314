import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/integrations.ts';
import { createIntegration } from '#shared/domain/events-out/integrations.ts';

export const handler = adminRoute(api.createIntegration, async ({ tenantId, actor, body }) =>
  createIntegration(tenantId, actor, body),
);
