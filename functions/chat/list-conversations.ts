import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { ownConversations } from '#shared/domain/customers/customers.ts';

export const handler = chatRoute(api.listOwnConversations, async ({ tenantId, origin, query }) =>
  ownConversations(tenantId, query, origin),
);
