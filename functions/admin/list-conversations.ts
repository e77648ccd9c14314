import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { ListConversationsQuery } from '#shared/http/schemas/conversations.ts';
import { listConversations } from '#shared/domain/conversations-admin.ts';

export const handler = adminRoute(
  { query: ListConversationsQuery },
  async ({ membership, query }) => ok(await listConversations(membership.tenantId, query)),
);
