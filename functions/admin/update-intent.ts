import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { replaceIntent } from '#shared/domain/assistant/intents.ts';

export const handler = adminRoute(api.updateIntent, async ({ tenantId, actor, params, body }) =>
  replaceIntent(tenantId, actor, params.id, body),
);
