import { userRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/auth.ts';
import { me } from '#shared/domain/me.ts';

export const handler = userRoute(api.getMe, async ({ user }) => me(user));
