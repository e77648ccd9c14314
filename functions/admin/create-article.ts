import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { createArticle } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.createArticle, async ({ tenantId, actor, body }) => createArticle(tenantId, actor, body));
