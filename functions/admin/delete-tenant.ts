import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tenant.ts';
import { requestDeletion } from '#shared/domain/privacy/deletion.ts';

export const handler = adminRoute(api.deleteTenant, async ({ tenantId, actor, body }) =>
  requestDeletion(tenantId, actor, body.name),
);
