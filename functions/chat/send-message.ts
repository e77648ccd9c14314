import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { sendMessage } from '#shared/domain/assistant/chat.ts';

export const handler = chatRoute(api.sendMessage, async ({ tenantId, origin, sourceIp, body }) =>
  sendMessage(tenantId, body, origin, sourceIp),
);
