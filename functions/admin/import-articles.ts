import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { importArticles } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.importArticles, async ({ tenantId, actor, body }) =>
  importArticles(tenantId, actor, body.articles),
);
