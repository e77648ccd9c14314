import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/integrations.ts';
import { listIntegrations } from '#shared/domain/integrations.ts';

export const handler = adminRoute(api.listIntegrations, async ({ tenantId }) => listIntegrations(tenantId));
