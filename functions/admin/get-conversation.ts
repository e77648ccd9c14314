import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/conversations.ts';
import { getConversationDetail } from '#shared/domain/conversations-admin.ts';

export const handler = adminRoute(api.getConversation, async ({ tenantId, params }) => getConversationDetail(tenantId, params.id));
