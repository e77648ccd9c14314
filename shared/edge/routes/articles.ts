import * as z from 'zod/mini';
import { ARTICLE_STATUSES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { pageQuery, shownName, text } from '../schema.ts';
import { Page, Timestamp } from './common.ts';

// The knowledge base's admin routes: help articles, listed, searched, written and imported.

// Article ids are opaque: any unknown one is 404 (the domain answers it), never 400.
export const ArticleParams = z.strictObject({ id: z.string() });

export const MAX_URL_CHARS = 2000;
const isHttps = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' && u.hostname !== '' && !u.username && !u.password;
  } catch {
    return false;
  }
};
export const ArticleUrl = z.string({ message: 'must be an https URL' }).check(
  z.trim(),
  z.maxLength(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`),
  z.refine(isHttps, 'must be an https URL'),
  // Stored as the URL standard serialises it: quotes, spaces and angle brackets percent-encoded.
  z.overwrite((u) => (isHttps(u) ? new URL(u).href : u)),
  z.maxLength(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters once normalised`),
  z.meta({ format: 'uri', description: "the article's page on the tenant's own help centre (https)" }),
);
export const ArticleStatus = z.enum(ARTICLE_STATUSES, { message: `must be ${ARTICLE_STATUSES.join(' or ')}` });

export const ArticleBody = z.strictObject({
  title: text(1, 200),
  body: text(1, 20_000).check(z.describe('Markdown')),
  url: z.optional(z.nullable(ArticleUrl)),
  tags: z._default(z.array(shownName(1, 40)).check(z.maxLength(20, 'must have at most 20 tags')), []),
  questions: z
    ._default(z.array(text(1, 300)).check(z.maxLength(20, 'must have at most 20 questions')), [])
    .check(z.describe('other ways a customer might ask what the article answers')),
  status: z
    ._default(ArticleStatus, 'published')
    .check(z.describe('a draft is never used by the assistant nor shown to the widget')),
});
export const ImportBody = z.strictObject({
  articles: z
    .array(ArticleBody)
    .check(z.minLength(1, 'must have 1 to 100 articles'), z.maxLength(100, 'must have 1 to 100 articles')),
});
export const ListArticlesQuery = z.strictObject({
  q: z.optional(
    text(1, 200).check(
      z.describe('ranks the articles that match by relevance, as the assistant would, instead of newest first'),
    ),
  ),
  status: z.optional(ArticleStatus),
  ...pageQuery,
});

const int = () => z.number().check(z.int());
export const Article = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  url: z.nullable(z.string()),
  tags: z.array(z.string()),
  questions: z.array(z.string()),
  status: ArticleStatus,
  hits: int().check(z.describe('answers the assistant gave from this article')),
  indexing: z
    .boolean()
    .check(
      z.describe(
        'true until the assistant has the sentence vectors of this version (answers meanwhile come from its words alone)',
      ),
    ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ArticleListItem = z.object({
  id: z.string(),
  title: z.string(),
  url: z.nullable(z.string()),
  tags: z.array(z.string()),
  status: ArticleStatus,
  hits: int(),
  indexing: z.boolean(),
  updatedAt: Timestamp,
});
export const ArticlePage = Page(ArticleListItem);
export const ImportResponse = z.object({
  created: int().check(z.describe('articles added')),
  updated: int().check(z.describe('articles replaced: their url matched')),
});

export const listArticles = declareAdmin('GET', '/articles', 'list-articles', 'viewer', {
  table: 'read',
  query: ListArticlesQuery,
  response: ArticlePage,
  status: 200,
  summary: 'Help articles, newest first or by relevance',
  description:
    'With `q`, only the articles that match it, best first, ranked by the same search the assistant uses (its `status` ' +
    'filter applies first); the cursor is bound to the query.',
});

export const getArticle = declareAdmin('GET', '/articles/{id}', 'get-article', 'viewer', {
  table: 'read',
  params: ArticleParams,
  response: Article,
  status: 200,
  summary: 'A help article',
});

export const createArticle = declareAdmin('POST', '/articles', 'create-article', 'admin', {
  table: 'write',
  body: ArticleBody,
  response: Article,
  status: 201,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Create a help article',
  description:
    'The next chat message already uses it (when published). A `url` that another article has, a 1,001st article, or ' +
    'an import in progress: 409 `CONFLICT`. Markdown the parser cannot read: 400 on `body`.',
});

export const importArticles = declareAdmin('POST', '/articles/import', 'import-articles', 'admin', {
  table: 'write',
  body: ImportBody,
  response: ImportResponse,
  status: 200,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Import help articles',
  description:
    "1 to 100 articles of the POST form. An article whose `url` matches an existing article's replaces it; the others are " +
    'added. All or nothing: one invalid article is a 400 naming it by index (`articles.3.title`) and nothing is written; two ' +
    'articles with one url are a 400 too. Beyond 1,000 articles, or while another import runs: 409 `CONFLICT`, nothing written.',
});

export const updateArticle = declareAdmin('PUT', '/articles/{id}', 'update-article', 'admin', {
  table: 'write',
  params: ArticleParams,
  body: ArticleBody,
  response: Article,
  status: 200,
  conflicts: ['CONFLICT'],
  summary: 'Replace a help article',
  description: 'A full replacement; the next chat message already uses it.',
});

export const deleteArticle = declareAdmin('DELETE', '/articles/{id}', 'delete-article', 'admin', {
  table: 'write',
  params: ArticleParams,
  status: 204,
  conflicts: ['CONFLICT'],
  summary: 'Delete a help article',
});

export const routes = [listArticles, getArticle, createArticle, importArticles, updateArticle, deleteArticle];
