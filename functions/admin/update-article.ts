import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { replaceArticle } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.updateArticle, async ({ tenantId, actor, params, body }) => replaceArticle(tenantId, actor, params.id, body));
