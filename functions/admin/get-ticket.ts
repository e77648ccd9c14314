import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { TicketParams } from '#shared/http/schemas/tickets.ts';
import { getTicket } from '#shared/domain/tickets.ts';

export const handler = adminRoute(
  { params: TicketParams },
  async ({ membership, params }) => ok(await getTicket(membership.tenantId, params.id)),
);
