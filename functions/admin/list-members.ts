import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/members.ts';
import { listMembers } from '#shared/domain/tenants/members.ts';

export const handler = adminRoute(api.listMembers, async ({ tenantId }) => listMembers(tenantId));
