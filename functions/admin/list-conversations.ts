import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/conversations.ts';
import { listConversations } from '#shared/domain/handoff/conversations-admin.ts';

export const handler = adminRoute(api.listConversations, async ({ tenantId, query }) =>
  listConversations(tenantId, query),
);
