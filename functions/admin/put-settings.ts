import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/settings.ts';
import { putSettings } from '#shared/domain/tenants/settings.ts';

export const handler = adminRoute(api.putSettings, async ({ tenantId, actor, body }) =>
  putSettings(tenantId, actor, body),
);
