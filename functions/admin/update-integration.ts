import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { IntegrationBody, IntegrationParams } from '#shared/http/schemas/integrations.ts';
import { replaceIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute(
  { params: IntegrationParams, body: IntegrationBody },
  async ({ membership, params, body }) => ok(await replaceIntegration(membership, params.id, body)),
);
