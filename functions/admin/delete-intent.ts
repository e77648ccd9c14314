import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { deleteIntent } from '#shared/domain/assistant/intents.ts';

export const handler = adminRoute(api.deleteIntent, async ({ tenantId, actor, params }) =>
  deleteIntent(tenantId, actor, params.id),
);
