import { userRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/auth.ts';
import { onboard } from '#shared/domain/tenants/tenants.ts';

export const handler = userRoute(api.onboard, async ({ user, body }) => onboard(user, body.tenantName));
