import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/nlu.ts';
import { listUnanswered } from '#shared/domain/assistant/unanswered.ts';

export const handler = adminRoute(api.listUnanswered, async ({ tenantId, query }) => listUnanswered(tenantId, query));
