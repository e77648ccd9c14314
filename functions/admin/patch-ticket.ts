import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/tickets.ts';
import { updateTicket } from '#shared/domain/tickets.ts';

export const handler = adminRoute(api.patchTicket, async ({ tenantId, actor, params, body }) => updateTicket(tenantId, actor, params.id, body));
