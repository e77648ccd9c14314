import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tickets.ts';
import { updateTicket } from '#shared/domain/handoff/tickets.ts';

export const handler = adminRoute(api.patchTicket, async ({ tenantId, actor, params, body }) =>
  updateTicket(tenantId, actor, params.id, body),
);
