import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/intents.ts';
import { createIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute(api.createIntent, async ({ tenantId, actor, body }) => createIntent(tenantId, actor, body));
