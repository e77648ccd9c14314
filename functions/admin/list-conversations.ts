import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/conversations.ts';
import { listConversations } from '#shared/domain/conversations-admin.ts';

export const handler = adminRoute(api.listConversations, async ({ tenantId, query }) => listConversations(tenantId, query));
