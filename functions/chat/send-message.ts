import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { sendMessage } from '#shared/domain/chat.ts';

export const handler = chatRoute(api.sendMessage, async ({ tenantId, origin, body }) => sendMessage(tenantId, body, origin));
