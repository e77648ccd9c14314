import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/tickets.ts';
import { getTicket } from '#shared/domain/tickets.ts';

export const handler = adminRoute(api.getTicket, async ({ tenantId, params }) => getTicket(tenantId, params.id));
