import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { createIntent } from '#shared/domain/assistant/intents.ts';

export const handler = adminRoute(api.createIntent, async ({ tenantId, actor, body }) =>
  createIntent(tenantId, actor, body),
);
