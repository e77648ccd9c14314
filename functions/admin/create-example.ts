import { adminRoute, withStatus } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/nlu.ts';
import { createExample } from '#shared/domain/assistant/examples.ts';

export const handler = adminRoute(api.createExample, async ({ tenantId, actor, body }) => {
  const { example, created } = await createExample(tenantId, actor, body);
  return created ? example : withStatus(200, example);
});
