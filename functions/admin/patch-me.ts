import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/auth.ts';
import { setDisplayName } from '#shared/domain/me.ts';

export const handler = adminRoute(api.patchMe, async ({ user, membership, body }) => setDisplayName(user, membership, body.displayName));
