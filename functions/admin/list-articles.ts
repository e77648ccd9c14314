import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { listArticles } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.listArticles, async ({ tenantId, query }) => listArticles(tenantId, query));
