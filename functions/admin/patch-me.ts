import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/auth.ts';
import { setDisplayName } from '#shared/domain/tenants/me.ts';

export const handler = adminRoute(api.patchMe, async ({ user, membership, body }) =>
  setDisplayName(user, membership, body.displayName),
);
