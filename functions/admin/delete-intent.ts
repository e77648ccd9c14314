import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/intents.ts';
import { deleteIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute(api.deleteIntent, async ({ tenantId, actor, params }) => deleteIntent(tenantId, actor, params.id));
