import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { escalate } from '#shared/domain/assistant/chat.ts';

export const handler = chatRoute(api.escalate, async ({ tenantId, origin, sourceIp, body }) =>
  escalate(tenantId, body, origin, sourceIp),
);
