import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/nlu.ts';
import { listExamples } from '#shared/domain/assistant/examples.ts';

export const handler = adminRoute(api.listExamples, async ({ tenantId, query }) => listExamples(tenantId, query));
