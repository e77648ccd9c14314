import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/team.ts';
import { createSavedReply } from '#shared/domain/team/saved-replies.ts';

export const handler = adminRoute(api.createSavedReply, async ({ tenantId, actor, body }) =>
  createSavedReply(tenantId, actor, body),
);
