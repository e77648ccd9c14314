import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { getConversation } from '#shared/domain/chat.ts';

export const handler = chatRoute(api.getChatConversation, async ({ tenantId, origin, params }) => getConversation(tenantId, params.id, origin));
