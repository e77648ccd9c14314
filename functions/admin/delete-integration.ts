import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/integrations.ts';
import { deleteIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute(api.deleteIntegration, async ({ tenantId, actor, params }) => deleteIntegration(tenantId, actor, params.id));
