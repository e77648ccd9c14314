import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/integrations.ts';
import { replaceIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute(api.updateIntegration, async ({ tenantId, actor, params, body }) => replaceIntegration(tenantId, actor, params.id, body));
