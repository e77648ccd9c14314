import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/integrations.ts';
import { listIntegrations } from '#shared/domain/events-out/integrations.ts';

export const handler = adminRoute(api.listIntegrations, async ({ tenantId }) => listIntegrations(tenantId));
