import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/members.ts';
import { removeMember } from '#shared/domain/members.ts';

export const handler = adminRoute(api.deleteMember, async ({ tenantId, actor, params }) => removeMember(tenantId, actor, params.id));
