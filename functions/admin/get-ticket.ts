import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tickets.ts';
import { getTicket } from '#shared/domain/handoff/tickets.ts';

export const handler = adminRoute(api.getTicket, async ({ tenantId, params }) => getTicket(tenantId, params.id));
