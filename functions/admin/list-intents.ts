import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/intents.ts';
import { listIntents } from '#shared/domain/intents.ts';

export const handler = adminRoute(api.listIntents, async ({ tenantId }) => listIntents(tenantId));
