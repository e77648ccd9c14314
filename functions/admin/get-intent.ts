import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/intents.ts';
import { getIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute(api.getIntent, async ({ tenantId, params }) => getIntent(tenantId, params.id));
