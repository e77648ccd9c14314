import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { ListTicketsQuery } from '#shared/http/schemas/tickets.ts';
import { listTickets } from '#shared/domain/tickets.ts';

export const handler = adminRoute(
  { query: ListTicketsQuery },
  async ({ membership, query }) => ok(await listTickets(membership.tenantId, query)),
);
