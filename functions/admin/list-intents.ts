import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { listIntents } from '#shared/domain/assistant/intents.ts';

export const handler = adminRoute(api.listIntents, async ({ tenantId }) => listIntents(tenantId));
