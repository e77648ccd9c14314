import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { createArticle } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.createArticle, async ({ tenantId, actor, body }) =>
  createArticle(tenantId, actor, body),
);
