import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/stats.ts';
import { getStats } from '#shared/domain/reports/stats.ts';

export const handler = adminRoute(api.getStats, async ({ tenantId, query }) => getStats(tenantId, query));
