import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/members.ts';
import { inviteMember } from '#shared/domain/tenants/members.ts';

export const handler = adminRoute(api.inviteMember, async ({ tenantId, actor, body }) =>
  inviteMember(tenantId, actor, body),
);
