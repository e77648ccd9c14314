import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/nlu.ts';
import { deleteExample } from '#shared/domain/assistant/examples.ts';

export const handler = adminRoute(api.deleteExample, async ({ tenantId, actor, params }) =>
  deleteExample(tenantId, actor, params.id),
);
