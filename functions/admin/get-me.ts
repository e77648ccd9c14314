import { userRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/auth.ts';
import { me } from '#shared/domain/tenants/me.ts';

export const handler = userRoute(api.getMe, async ({ user }) => me(user));
