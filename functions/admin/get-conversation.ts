import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { ConversationParams } from '#shared/http/schemas/conversations.ts';
import { getConversationDetail } from '#shared/domain/conversations-admin.ts';

export const handler = adminRoute(
  { params: ConversationParams },
  async ({ membership, params }) => ok(await getConversationDetail(membership.tenantId, params.id)),
);
