import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { deleteArticle } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.deleteArticle, async ({ tenantId, actor, params }) =>
  deleteArticle(tenantId, actor, params.id),
);
