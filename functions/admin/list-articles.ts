import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/articles.ts';
import { listArticles } from '#shared/domain/knowledge/articles.ts';

export const handler = adminRoute(api.listArticles, async ({ tenantId, query }) => listArticles(tenantId, query));
