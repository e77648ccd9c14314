import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/settings.ts';
import { rotateIdentitySecret } from '#shared/domain/tenants/settings.ts';

export const handler = adminRoute(api.rotateIdentitySecret, async ({ tenantId, actor }) =>
  rotateIdentitySecret(tenantId, actor),
);
