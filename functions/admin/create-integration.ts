import { adminRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { IntegrationBody } from '#shared/http/schemas/integrations.ts';
import { createIntegration } from '#shared/domain/integrations.ts';

export const handler = adminRoute({ body: IntegrationBody }, async ({ membership, body }) => created(await createIntegration(membership, body)));
