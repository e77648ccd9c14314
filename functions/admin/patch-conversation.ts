import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/conversations.ts';
import { patchConversation } from '#shared/domain/team/labels.ts';

export const handler = adminRoute(api.patchConversation, async ({ tenantId, params, body }) =>
  patchConversation(tenantId, params.id, body),
);
