import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { getPublishedArticle } from '#shared/domain/knowledge/articles.ts';

export const handler = chatRoute(api.getChatArticle, async ({ tenantId, origin, params }) =>
  getPublishedArticle(tenantId, params.id, origin),
);
