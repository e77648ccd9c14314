import { userRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { me } from '#shared/domain/me.ts';

export const handler = userRoute({}, async ({ user }) => ok(await me(user)));
