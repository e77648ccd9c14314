import type { Api } from './client.ts';

// Calls to routes that the contract names but the OpenAPI document does not have yet (CONTRACT
// section 11, the knowledge base), with hand-declared types. Replace each with a generated type
// and a typed `api.GET/POST` call when its route lands; nothing else in the dashboard declares API types.

export interface ArticleSummary { id: string; title: string; url: string | null; tags: string[]; status: 'published' | 'draft'; hits: number; updatedAt: string }
export interface Article extends ArticleSummary { body: string; questions: string[]; createdAt: string }
export interface ArticleInput { title: string; body: string; url?: string; tags?: string[]; questions?: string[]; status?: 'published' | 'draft' }
export const listArticles = (api: Api, query: { q?: string; status?: string; cursor?: string }) => {
  const qs = new URLSearchParams(Object.entries(query).filter(([, v]) => v) as [string, string][]);
  return api.raw<{ items: ArticleSummary[]; nextCursor: string | null }>('GET', `/api/v1/admin/articles${qs.size ? `?${qs}` : ''}`);
};
export const getArticle = (api: Api, id: string) => api.raw<Article>('GET', `/api/v1/admin/articles/${encodeURIComponent(id)}`);
export const saveArticle = (api: Api, id: string | null, body: ArticleInput) =>
  id ? api.raw<Article>('PUT', `/api/v1/admin/articles/${encodeURIComponent(id)}`, body) : api.raw<Article>('POST', '/api/v1/admin/articles', body);
export const deleteArticle = (api: Api, id: string) => api.raw<void>('DELETE', `/api/v1/admin/articles/${encodeURIComponent(id)}`);
