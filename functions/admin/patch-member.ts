import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/members.ts';
import { changeRole } from '#shared/domain/tenants/members.ts';

export const handler = adminRoute(api.patchMember, async ({ tenantId, actor, params, body }) =>
  changeRole(tenantId, actor, params.id, body.role),
);
