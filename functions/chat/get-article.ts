import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { getPublishedArticle } from '#shared/domain/articles.ts';

export const handler = chatRoute(api.getChatArticle, async ({ tenantId, origin, params }) => getPublishedArticle(tenantId, params.id, origin));
