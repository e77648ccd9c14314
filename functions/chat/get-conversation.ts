import { chatRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { IdParams } from '#shared/http/schema.ts';
import { getConversation } from '#shared/domain/chat.ts';

export const handler = chatRoute(
  { params: IdParams },
  async ({ tenant, params }) => ok(await getConversation(tenant.tenantId, params.id)),
);
