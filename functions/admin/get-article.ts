import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { getArticle } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.getArticle, async ({ tenantId, params }) => getArticle(tenantId, params.id));
