import { userRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/auth.ts';
import { onboard } from '#shared/domain/tenants.ts';

export const handler = userRoute(api.onboard, async ({ user, body }) => onboard(user, body.tenantName));
