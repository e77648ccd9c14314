import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/articles.ts';
import { deleteArticle } from '#shared/domain/articles.ts';

export const handler = adminRoute(api.deleteArticle, async ({ tenantId, actor, params }) => deleteArticle(tenantId, actor, params.id));
