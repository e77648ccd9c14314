import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/nlu.ts';
import { parseMessage } from '#shared/domain/assistant.ts';

export const handler = adminRoute(api.parse, async ({ tenantId, body }) => parseMessage(tenantId, body.message));
