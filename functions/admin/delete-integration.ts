import { adminRoute } from '#shared/http/kit.ts';
import { noContent } from '#shared/http/response.ts';
import { IntegrationParams } from '#shared/http/schemas/integrations.ts';
import { deleteIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute({ params: IntegrationParams }, async ({ membership, params }) => {
  await deleteIntegration(membership, params.id);
  return noContent();
});
