import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { importArticles } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.importArticles, async ({ tenantId, actor, body }) => importArticles(tenantId, actor, body.articles));
