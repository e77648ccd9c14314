import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { getConversation } from '#shared/domain/assistant/chat.ts';

export const handler = chatRoute(api.getChatConversation, async ({ tenantId, origin, params }) =>
  getConversation(tenantId, params.id, origin),
);
