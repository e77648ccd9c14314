import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/team.ts';
import { deleteSavedReply } from '#shared/domain/team/saved-replies.ts';

export const handler = adminRoute(api.deleteSavedReply, async ({ tenantId, actor, params }) =>
  deleteSavedReply(tenantId, actor, params.id),
);
