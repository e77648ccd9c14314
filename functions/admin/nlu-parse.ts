import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/nlu.ts';
import { parseMessage } from '#shared/domain/assistant/assistant.ts';

export const handler = adminRoute(api.parse, async ({ tenantId, body }) => parseMessage(tenantId, body.message));
