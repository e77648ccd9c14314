import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/stats.ts';
import { getStats } from '#shared/domain/stats.ts';

export const handler = adminRoute(api.getStats, async ({ tenantId, query }) => getStats(tenantId, query));
