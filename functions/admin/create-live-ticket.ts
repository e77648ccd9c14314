import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/live.ts';
import { issueLiveTicket } from '#shared/domain/handoff/live.ts';

export const handler = adminRoute(api.createLiveTicket, async ({ tenantId, user }) =>
  issueLiveTicket(tenantId, user.sub),
);
