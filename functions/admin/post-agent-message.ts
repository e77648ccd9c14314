import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/conversations.ts';
import { postAgentMessage } from '#shared/domain/handoff/handoff.ts';
import { displayNameOf } from '#shared/domain/tenants/me.ts';

export const handler = adminRoute(api.postAgentMessage, async ({ tenantId, actor, user, membership, params, body }) =>
  postAgentMessage(tenantId, actor, { id: user.sub, name: displayNameOf(membership, user) }, params.id, body.content),
);
