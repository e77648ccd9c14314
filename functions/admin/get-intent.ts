import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { getIntent } from '#shared/domain/assistant/intents.ts';

export const handler = adminRoute(api.getIntent, async ({ tenantId, params }) => getIntent(tenantId, params.id));
