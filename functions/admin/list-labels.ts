import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/team.ts';
import { listLabels } from '#shared/domain/team/labels.ts';

export const handler = adminRoute(api.listLabels, async ({ tenantId }) => listLabels(tenantId));
