import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/members.ts';
import { removeMember } from '#shared/domain/tenants/members.ts';

export const handler = adminRoute(api.deleteMember, async ({ tenantId, actor, params }) =>
  removeMember(tenantId, actor, params.id),
);
