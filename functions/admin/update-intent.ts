import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/intents.ts';
import { replaceIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute(api.updateIntent, async ({ tenantId, actor, params, body }) => replaceIntent(tenantId, actor, params.id, body));
