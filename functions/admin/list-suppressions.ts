import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/settings.ts';
import { listSuppressions } from '#shared/domain/email/suppressions.ts';

export const handler = adminRoute(api.listSuppressions, async ({ tenantId }) => listSuppressions(tenantId));
