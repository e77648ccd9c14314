import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { rateConversation } from '#shared/domain/handoff.ts';

export const handler = chatRoute(api.rateConversation, async ({ tenantId, origin, params, body }) => rateConversation(tenantId, params.id, body, origin));
