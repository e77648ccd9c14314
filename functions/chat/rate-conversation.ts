import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { rateConversation } from '#shared/domain/handoff/handoff.ts';

export const handler = chatRoute(api.rateConversation, async ({ tenantId, origin, params, body }) =>
  rateConversation(tenantId, params.id, body, origin),
);
