import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/settings.ts';
import { putSettings } from '#shared/domain/settings.ts';

export const handler = adminRoute(api.putSettings, async ({ tenantId, actor, body }) => putSettings(tenantId, actor, body));
