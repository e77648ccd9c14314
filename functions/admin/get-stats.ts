import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { StatsQuery } from '#shared/http/schemas/stats.ts';
import { getStats } from '#shared/domain/stats.ts';

export const handler = adminRoute(
  { query: StatsQuery },
  async ({ membership, query }) => ok(await getStats(membership.tenantId, query)),
);
