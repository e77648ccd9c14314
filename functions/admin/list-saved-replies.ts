import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/team.ts';
import { listSavedReplies } from '#shared/domain/team/saved-replies.ts';

export const handler = adminRoute(api.listSavedReplies, async ({ tenantId }) => listSavedReplies(tenantId));
