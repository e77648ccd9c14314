import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/conversations.ts';
import { postAgentMessage } from '#shared/domain/handoff.ts';
import { displayNameOf } from '#shared/domain/me.ts';

export const handler = adminRoute(api.postAgentMessage, async ({ tenantId, actor, user, membership, params, body }) =>
  postAgentMessage(tenantId, actor, { id: user.sub, name: displayNameOf(membership, user) }, params.id, body.content));
