import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/integrations.ts';
import { deleteIntegration } from '#shared/domain/events-out/integrations.ts';

export const handler = adminRoute(api.deleteIntegration, async ({ tenantId, actor, params }) =>
  deleteIntegration(tenantId, actor, params.id),
);
