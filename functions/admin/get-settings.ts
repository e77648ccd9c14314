import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/settings.ts';
import { getSettings } from '#shared/domain/tenants/settings.ts';

export const handler = adminRoute(api.getSettings, async ({ tenantId }) => getSettings(tenantId));
