import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/live.ts';
import { issueLiveTicket } from '#shared/domain/live.ts';

export const handler = adminRoute(api.createLiveTicket, async ({ tenantId, user }) => issueLiveTicket(tenantId, user.sub));
