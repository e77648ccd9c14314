import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/conversations.ts';
import { getConversationDetail } from '#shared/domain/handoff/conversations-admin.ts';

export const handler = adminRoute(api.getConversation, async ({ tenantId, params }) =>
  getConversationDetail(tenantId, params.id),
);
