import type { Api, Ok } from './client.ts';

// Calls to routes that the contract names but the OpenAPI document does not have yet (CONTRACT
// sections 8 and 11), with hand-declared types. Replace each with a generated type and a typed
// `api.GET/POST` call when its route lands; nothing else in the dashboard declares API types.

type Conversation = Ok<'/api/v1/admin/conversations/{id}', 'get'>;
export type Ticket = Conversation['tickets'][number] & {
  /** Section 8: present once assignment lands. */
  assigneeId?: string | null; firstResponseAt?: string | null; resolvedAt?: string | null;
};

/** Section 8: an agent's message; `author` is present on agent messages. */
export interface AgentMessage {
  id: string; role: 'agent'; content: string; createdAt: string; author: { id?: string; name: string };
}
export const postAgentMessage = (api: Api, conversationId: string, content: string) =>
  api.raw<{ message: AgentMessage }>('POST', `/api/v1/admin/conversations/${encodeURIComponent(conversationId)}/messages`, { content });

/** Section 8: a one-time ticket for the live channel. */
export const createLiveTicket = (api: Api) =>
  api.raw<{ ticket: string; expiresAt: string }>('POST', '/api/v1/admin/live/tickets');

/** Sections 8 and 11: what the next chat message would get, storing nothing. */
export interface ParseResult {
  intentDetected: string; confidence: number; entitiesExtracted: Record<string, string>;
  intentRanking: { intent: string; confidence: number }[];
  reply?: string; sources?: { articleId: string; title: string; url?: string | null }[];
}
export const parseMessage = (api: Api, message: string) => api.raw<ParseResult>('POST', '/api/v1/admin/nlu/parse', { message });

/** Section 8: the user's own display name. */
export const patchMe = (api: Api, displayName: string) =>
  api.raw<Ok<'/api/v1/admin/auth/me', 'get'> & { displayName?: string }>('PATCH', '/api/v1/admin/auth/me', { displayName });

/** Section 8: the daily series of GET /stats (may be absent until it lands). */
export interface StatsDay { date: string; conversations: number; messages: number; escalations: number; fallbacks: number }
export type Stats = Ok<'/api/v1/admin/stats', 'get'> & { series?: StatsDay[] };

/** Section 11: help articles. */
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
