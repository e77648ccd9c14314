import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { EmptyQuery } from '#shared/http/schema.ts';
import { listIntegrations } from '#shared/domain/integrations.ts';

export const handler = adminRoute({ query: EmptyQuery }, async ({ membership }) => ok(await listIntegrations(membership)));
