import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/team.ts';
import { replaceSavedReply } from '#shared/domain/team/saved-replies.ts';

export const handler = adminRoute(api.updateSavedReply, async ({ tenantId, actor, params, body }) =>
  replaceSavedReply(tenantId, actor, params.id, body),
);
