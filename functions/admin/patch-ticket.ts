import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { PatchTicketBody, TicketParams } from '#shared/http/schemas/tickets.ts';
import { updateTicket } from '#shared/domain/tickets.ts';

export const handler = adminRoute(
  { params: TicketParams, body: PatchTicketBody },
  async ({ membership, user, params, body }) =>
    ok(await updateTicket(membership.tenantId, { type: 'user', id: user.sub }, params.id, body)),
);
