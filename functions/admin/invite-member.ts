import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/members.ts';
import { inviteMember } from '#shared/domain/members.ts';

export const handler = adminRoute(api.inviteMember, async ({ tenantId, actor, body }) => inviteMember(tenantId, actor, body));
