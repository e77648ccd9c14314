import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/members.ts';
import { listMembers } from '#shared/domain/members.ts';

export const handler = adminRoute(api.listMembers, async ({ tenantId }) => listMembers(tenantId));
