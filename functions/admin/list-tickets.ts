import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/tickets.ts';
import { listTickets } from '#shared/domain/tickets.ts';

export const handler = adminRoute(api.listTickets, async ({ tenantId, actor, query }) => listTickets(tenantId, actor, query));
