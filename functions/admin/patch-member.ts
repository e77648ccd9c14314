import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/members.ts';
import { changeRole } from '#shared/domain/members.ts';

export const handler = adminRoute(api.patchMember, async ({ tenantId, actor, params, body }) => changeRole(tenantId, actor, params.id, body.role));
