import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/settings.ts';
import { getSettings } from '#shared/domain/settings.ts';

export const handler = adminRoute(api.getSettings, async ({ tenantId }) => getSettings(tenantId));
