import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { getArticle } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.getArticle, async ({ tenantId, params }) => getArticle(tenantId, params.id));
