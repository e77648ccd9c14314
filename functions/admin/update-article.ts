import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { replaceArticle } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.updateArticle, async ({ tenantId, actor, params, body }) =>
  replaceArticle(tenantId, actor, params.id, body),
);
