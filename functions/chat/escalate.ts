import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { escalate } from '#shared/domain/chat.ts';

export const handler = chatRoute(api.escalate, async ({ tenantId, origin, body }) => escalate(tenantId, body, origin));
