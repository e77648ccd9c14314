import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tickets.ts';
import { listTickets } from '#shared/domain/handoff/tickets.ts';

export const handler = adminRoute(api.listTickets, async ({ tenantId, actor, query }) =>
  listTickets(tenantId, actor, query),
);
