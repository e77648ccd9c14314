import { ulid } from 'ulid';
import { Conflict, fieldError, InvalidCursor, NotFound } from '#shared/core/errors.ts';
import type { Actor, ArticleStatus } from '#shared/core/vocabulary.ts';
import {
  articlesRepo,
  importRepo,
  MAX_ARTICLES,
  TENANT_INDEX,
  type Article,
  type ImportWrite,
  type Searchable,
} from '#shared/data/articles.ts';
import { decodeCursor, encodeCursor } from '#shared/data/cursor.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { indexingFrom, indexingOf } from '#shared/domain/vectors.ts';
import { vectorsRepo } from '#shared/data/vectors.ts';
import { keys } from '#shared/data/keys.ts';
import { keyString } from '#shared/data/lists.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { MAX_TX_ITEMS, retrying, TxConditionFailed, TxConflict, type TxItem } from '#shared/data/tx.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';
import {
  buildKnowledgeIndex,
  type KnowledgeIndex,
  MarkdownError,
  markdownToBlocks,
  prepareArticle,
} from '#shared/nlu/index.ts';
import { auditValue, sameValue } from '#shared/domain/audit-value.ts';
import { isArticleId } from './knowledge.ts';
import { freshTenant } from '#shared/domain/tenants/widget-auth.ts';
import { clock } from '#shared/core/clock.ts';

// The knowledge base's admin side: articles written, listed, searched and imported. Markdown is
// reduced to passages here, at write time (the chat functions never load the parser).

export interface ArticleInput {
  title: string;
  body: string;
  url?: string | null | undefined;
  tags: string[];
  questions: string[];
  status: ArticleStatus;
}

const notFound = () => new NotFound('article');

/** An import that still holds the lock after this long died on its way: the next write rolls it back. */
export const IMPORT_TIMEOUT_MS = 60_000;

const FIELDS = ['title', 'body', 'url', 'tags', 'questions', 'status'] as const;

export function articleChanges(before: Partial<Article> | null, after: Partial<Article> | null) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of FIELDS) {
    const from = before?.[f] ?? null;
    const to = after?.[f] ?? null;
    if (!sameValue(from, to)) changes[f] = { from: auditValue(from), to: auditValue(to) };
  }
  return changes;
}

const audit = (
  tenantId: string,
  actor: Actor,
  action: string,
  target: { type: string; id: string },
  changes: Record<string, { from: unknown; to: unknown }>,
  createdAt: string,
): TxItem => auditRepo.tx.put(tenantId, { category: 'knowledge', action, actor, target, changes, createdAt });

/** The article as stored, and its searchable form; a body the Markdown parser cannot read is a 400 on `path`. */
export function build(
  id: string,
  input: ArticleInput,
  createdAt: string,
  updatedAt: string,
  path = 'body',
): { article: Article; searchable: Searchable } {
  const article: Article = {
    id,
    title: input.title,
    body: input.body,
    url: input.url ?? null,
    tags: input.tags,
    questions: input.questions,
    status: input.status,
    createdAt,
    updatedAt,
  };
  try {
    const prepared = prepareArticle(article);
    return { article, searchable: { ...prepared, status: article.status, createdAt, updatedAt } };
  } catch (e) {
    if (e instanceof MarkdownError) throw fieldError(path, `could not be read as Markdown (${e.message})`);
    throw e;
  }
}

const view = (a: Article, hits: number, indexing: boolean) => ({ ...a, hits, indexing });
type Indexing = Awaited<ReturnType<typeof indexingOf>>;
const listItem = (
  a: Pick<Article, 'id' | 'title' | 'url' | 'tags' | 'status' | 'updatedAt'>,
  hits: Map<string, number>,
  indexing: Indexing,
) => ({
  id: a.id,
  title: a.title,
  url: a.url,
  tags: a.tags,
  status: a.status,
  hits: hits.get(a.id) ?? 0,
  indexing: indexing(a),
  updatedAt: a.updatedAt,
});

/** A later timestamp than `before`, even within the same millisecond (the write's condition is on it). */
export const after = (before: string) => {
  const now = clock.iso();
  return now > before ? now : new Date(Date.parse(before) + 1).toISOString();
};

export async function find(tenantId: string, id: string): Promise<Article> {
  if (!isArticleId(id)) throw notFound();
  const a = await articlesRepo.get(tenantId, id);
  if (!a) throw notFound();
  return a;
}

export async function getArticle(tenantId: string, id: string) {
  if (!isArticleId(id)) throw notFound();
  // The article, its hits and the indexer's state: one BatchGet.
  const stateKey = vectorsRepo.stateKey(tenantId);
  const { article: a, hits, also } = await articlesRepo.getWith(tenantId, id, [stateKey]);
  if (!a) throw notFound();
  return view(a, hits.get(id) ?? 0, indexingFrom(vectorsRepo.stateOf(also.get(keyString(stateKey))))(a));
}

export interface ListQuery {
  q?: string | undefined;
  status?: ArticleStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

// The admin's `q` search builds an index of the tenant's articles (drafts too, unless filtered),
// kept in the warm container by articlesVersion like the chat's, so a repeated search reads only
// the tenant and the hit counts.
const searchIndexes = new TenantModelCache<{ index: KnowledgeIndex; byId: Map<string, Searchable> }>(20);

/**
 * Newest first; with `q`, by relevance as the chat's search ranks them (only articles that match
 * at all), paged by a cursor that holds the last item's place in the ranking (score, then id).
 */
export async function listArticles(tenantId: string, query: ListQuery) {
  const { q, status, limit, cursor } = query;
  if (q === undefined) {
    const stateKey = vectorsRepo.stateKey(tenantId);
    const [page, { hits, also }] = await Promise.all([
      articlesRepo.page(tenantId, status, limit, cursor),
      articlesRepo.hitsWith(tenantId, [stateKey]),
    ]);
    const indexing = indexingFrom(vectorsRepo.stateOf(also.get(keyString(stateKey))));
    return { items: page.items.map((a) => listItem(a, hits, indexing)), nextCursor: page.nextCursor };
  }
  const scope = { tenantId, list: 'articles-search', filters: { q, status } };
  const from = cursor ? decodeCursor(scope, cursor) : null;
  if (from && (typeof from.s !== 'number' || typeof from.i !== 'string')) throw new InvalidCursor();
  // The tenant (its articlesVersion keys the cached index), the hits and the indexer's state: one BatchGet.
  const tenantKey = keys.tenant(tenantId);
  const stateKey = vectorsRepo.stateKey(tenantId);
  const { hits, also } = await articlesRepo.hitsWith(tenantId, [tenantKey, stateKey]);
  const tenantItem = also.get(keyString(tenantKey));
  const tenant = tenantItem ? tenantsRepo.fromItem(tenantItem) : null;
  const indexing = indexingFrom(vectorsRepo.stateOf(also.get(keyString(stateKey))));
  if (!tenant) throw notFound();
  const { index, byId } = await searchIndexes.get(
    `${tenantId}#${status ?? ''}`,
    tenant.articlesVersion ?? 0,
    async () => {
      const all = await articlesRepo.searchables(tenantId);
      const pool = status ? all.filter((a) => a.status === status) : all;
      return { index: buildKnowledgeIndex(pool), byId: new Map(pool.map((a) => [a.id, a])) };
    },
  );
  // Ranked by score, then id; the page after the cursor's place in that order.
  const page = index.rankPage(q, limit, from ? { confidence: from.s as number, articleId: from.i as string } : null);
  const last = page.items.at(-1);
  return {
    items: page.items.map((r) => listItem(byId.get(r.articleId)!, hits, indexing)),
    nextCursor: page.more && last ? encodeCursor(scope, { s: last.confidence, i: last.articleId }) : null,
  };
}

/**
 * A single write failed on the tenant's condition: an import holds the lock (a stale one is rolled
 * back and the write tried again), or the article limit is reached.
 */
export async function tenantRefused(tenantId: string): Promise<'retry' | 'limit'> {
  const t = await tenantsRepo.get(tenantId, true);
  if (!t) throw notFound();
  if (t.articlesImportId === undefined) return 'limit';
  if (!(await recoverStaleImport(t))) throw new Conflict('an import of articles is in progress; try again in a moment');
  return 'retry';
}

const urlTaken = () => new Conflict('another article has this url');
const CHANGED = { attempts: 4, conflict: 'the article changed concurrently; try again' };

export function createArticle(tenantId: string, actor: Actor, input: ArticleInput) {
  const now = clock.iso();
  const { article, searchable } = build(`art_${ulid(clock.now())}`, input, now, now);
  return retrying(async () => {
    try {
      await articlesRepo.create(
        tenantId,
        article,
        searchable,
        audit(
          tenantId,
          actor,
          'article.created',
          { type: 'article', id: article.id },
          articleChanges(null, article),
          now,
        ),
      );
    } catch (e) {
      if (e instanceof TxConditionFailed && article.url && e.failed[3]) throw urlTaken();
      if (e instanceof TxConditionFailed && e.failed[TENANT_INDEX]) {
        if ((await tenantRefused(tenantId)) === 'limit')
          throw new Conflict(`a tenant has at most ${MAX_ARTICLES} articles`);
      }
      throw e;
    }
    return view(article, 0, true);
  }, CHANGED);
}

export function replaceArticle(tenantId: string, actor: Actor, id: string, input: ArticleInput) {
  // A concurrent write won: re-read (404 if it was a delete) and apply ours on top.
  return retrying(async () => {
    const [before, hits] = await Promise.all([find(tenantId, id), articlesRepo.hits(tenantId)]);
    const changes = articleChanges(before, { ...input, url: input.url ?? null });
    // Writing the same article again changes nothing: no version bump, no audit entry.
    if (Object.keys(changes).length === 0) return view(before, hits.get(id) ?? 0, (await indexingOf(tenantId))(before));
    const now = after(before.updatedAt);
    const { article, searchable } = build(id, input, before.createdAt, now);
    try {
      await articlesRepo.replace(
        tenantId,
        before,
        article,
        searchable,
        audit(tenantId, actor, 'article.updated', { type: 'article', id }, changes, now),
      );
    } catch (e) {
      if (e instanceof TxConditionFailed && article.url && article.url !== before.url && e.failed[3]) throw urlTaken();
      if (e instanceof TxConditionFailed && e.failed[TENANT_INDEX]) await tenantRefused(tenantId);
      throw e;
    }
    return view(article, hits.get(id) ?? 0, true);
  }, CHANGED);
}

export async function deleteArticle(tenantId: string, actor: Actor, id: string) {
  await retrying(async () => {
    const a = await find(tenantId, id);
    const now = clock.iso();
    try {
      await articlesRepo.remove(
        tenantId,
        a,
        audit(tenantId, actor, 'article.deleted', { type: 'article', id }, articleChanges(a, null), now),
      );
    } catch (e) {
      if (e instanceof TxConditionFailed && e.failed[TENANT_INDEX]) await tenantRefused(tenantId);
      throw e;
    }
  }, CHANGED);
}

// ---- import --------------------------------------------------------------------------------------
//
// An import of up to 100 articles takes about 250 items (article, searchable form, URL guard each)
// plus the audit entry and the version bump, and a DynamoDB transaction takes at most 100. So:
//  1. Everything that can fail on the input fails first: every article is validated and reduced
//     to passages in memory (a 400 names the first bad one by index), nothing is written.
//  2. A consistent read finds which URLs exist (those articles are replaced) and the version.
//  3. One transaction takes a lock on the tenant, on the condition that the version is still the
//     one read (no write since) and that the new articles fit the limit. While the lock is held,
//     every other article write is refused with 409.
//  4. The articles are written in transactions of at most 100 items, in parallel, each holding only
//     while the lock is ours. Every item carries the import's id and what it replaced, so that
//     readers (the chat's index) keep seeing the previous articles until the commit.
//  5. One transaction commits: the version bump (the chat uses the new articles from the next
//     message), the article count, the audit entry, the lock released.
// A failure in 4 or 5 rolls back what was written (found by the import's id, restored from what
// each item replaced) and releases the lock. If the function dies on the way, the lock stays and
// readers keep seeing the old articles; the next article write finds the lock older than
// IMPORT_TIMEOUT_MS and rolls the import back the same way before it goes on.

/** Rolls back an import that still holds the lock; false if it is not old enough to be called dead. */
async function recoverStaleImport(t: Tenant): Promise<boolean> {
  const at = Date.parse(t.articlesImportAt ?? '');
  if (t.articlesImportId === undefined || (Number.isFinite(at) && clock.now() - at < IMPORT_TIMEOUT_MS)) return false;
  await rollback(t.id, t.articlesImportId);
  return true;
}

async function rollback(tenantId: string, importId: string): Promise<void> {
  const written = await importRepo.written(tenantId, importId);
  const undone = await Promise.allSettled(written.map((w) => importRepo.undo(tenantId, importId, w)));
  // An item that no longer carries our id was changed by someone else since: nothing of ours to undo.
  const failed = undone.find((r) => r.status === 'rejected' && !(r.reason instanceof TxConditionFailed));
  if (failed) throw (failed as PromiseRejectedResult).reason;
  try {
    await importRepo.release(tenantId, importId);
  } catch (e) {
    if (!(e instanceof TxConditionFailed)) throw e;
  }
}

const MAX_CHUNK_ITEMS = MAX_TX_ITEMS - 1; // plus the lock's condition check (and an Idempotency-Key's fence)

export function chunkWrites(writes: ImportWrite[]): ImportWrite[][] {
  const chunks: ImportWrite[][] = [];
  let cur: ImportWrite[] = [];
  let size = 0;
  for (const w of writes) {
    const n = importRepo.itemsPerWrite(w);
    if (size + n > MAX_CHUNK_ITEMS) {
      chunks.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(w);
    size += n;
  }
  if (cur.length) chunks.push(cur);
  return chunks;
}

/** The same URL as WHATWG's parser writes it, so that `https://Help.example/a` and `https://help.example/a` are one. */
const sameUrl = (u: string) => new URL(u).href;

export async function importArticles(tenantId: string, actor: Actor, inputs: ArticleInput[]) {
  // 1. Validate and prepare everything before anything is read or written.
  const seen = new Map<string, number>();
  inputs.forEach((a, i) => {
    if (!a.url) return;
    const first = seen.get(sameUrl(a.url));
    if (first !== undefined) throw fieldError(`articles.${i}.url`, `is the url of articles.${first} too`);
    seen.set(sameUrl(a.url), i);
  });
  const now = clock.iso();
  const prepared = inputs.map((input, i) => build('', input, now, now, `articles.${i}.body`));

  return retrying(
    async () => {
      // 2. Which URLs exist, and the version the plan is based on.
      const urls = inputs.flatMap((a) => (a.url ? [a.url] : []));
      const [tenant, owners] = await Promise.all([
        tenantsRepo.get(tenantId, true),
        articlesRepo.urlOwners(tenantId, urls),
      ]);
      if (!tenant) throw notFound();
      if (tenant.articlesImportId !== undefined) {
        if (!(await recoverStaleImport(tenant)))
          throw new Conflict('another import of articles is in progress; try again in a moment');
        throw new TxConflict(); // read again after the rollback
      }
      const { articles: olds, searchables: oldForms } = await articlesRepo.many(tenantId, [
        ...new Set(owners.values()),
      ]);
      const writes: ImportWrite[] = prepared.map(({ article, searchable }, i) => {
        const ownerId = inputs[i]!.url ? owners.get(inputs[i]!.url!) : undefined;
        const old = ownerId ? olds.get(ownerId) : undefined;
        const oldForm = ownerId ? oldForms.get(ownerId) : undefined;
        if (!ownerId || !old || !oldForm) {
          const id = `art_${ulid(clock.now())}`;
          return { article: { ...article, id }, searchable: { ...searchable, id }, before: null };
        }
        const before = { article: old, searchable: oldForm };
        const updatedAt = after(before.article.updatedAt);
        return {
          article: { ...article, id: ownerId, createdAt: before.article.createdAt, updatedAt },
          searchable: { ...searchable, id: ownerId, createdAt: before.article.createdAt, updatedAt },
          before,
        };
      });
      const created = writes.filter((w) => !w.before).length;
      if ((tenant.articleCount ?? 0) + created > MAX_ARTICLES) {
        throw new Conflict(
          `a tenant has at most ${MAX_ARTICLES} articles: this import would make ${(tenant.articleCount ?? 0) + created}`,
        );
      }

      // 3. The lock (a write since our read makes it fail: retrying reads and plans again).
      const importId = `imp_${ulid(clock.now())}`;
      await importRepo.lock(tenantId, importId, tenant.articlesVersion ?? 0, created);

      // 4 and 5, rolled back on any failure.
      try {
        const results = await Promise.allSettled(
          chunkWrites(writes).map((chunk) => importRepo.write(tenantId, importId, chunk)),
        );
        const failed = results.find((r) => r.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
        const ids = (which: 'created' | 'updated') =>
          writes.filter((w) => (which === 'created') === !w.before).map((w) => w.article.id);
        await importRepo.commit(
          tenantId,
          importId,
          created,
          audit(
            tenantId,
            actor,
            'articles.imported',
            { type: 'import', id: importId },
            { created: { from: null, to: ids('created') }, updated: { from: null, to: ids('updated') } },
            now,
          ),
        );
      } catch (e) {
        // A commit whose answer was lost (a timeout) may have gone through: then the lock is gone and the version moved.
        if (!(e instanceof TxConditionFailed)) {
          const t = await tenantsRepo.get(tenantId, true).catch(() => null);
          if (t && t.articlesImportId !== importId && (t.articlesVersion ?? 0) > (tenant.articlesVersion ?? 0)) {
            return { created, updated: writes.length - created };
          }
        }
        await rollback(tenantId, importId);
        // Not retried: the caller decides (a 409 or a 503 says nothing was written).
        if (e instanceof TxConditionFailed || e instanceof TxConflict)
          throw new Conflict('the articles changed during the import; nothing was imported');
        throw e;
      }
      return { created, updated: writes.length - created };
    },
    { attempts: 3, conflict: 'the articles changed concurrently; nothing was imported, try again', jitterMs: 50 },
  );
}

// Articles' plain-text blocks, by tenant and article, at the article's updatedAt.
const articleBlocks = new TenantModelCache<string[]>(500);

/**
 * The widget's view of an article: published ones only (a draft is as unknown as a missing one).
 * `blocks` is the body as plain text, reduced by the same parser as the answers, so that a client
 * shows it as text without a Markdown parser of its own.
 */
export async function getPublishedArticle(tenantId: string, id: string, origin?: string) {
  // The tenant is read fresh for its origin rule, beside the article.
  const [, a] = await Promise.all([
    freshTenant(tenantId, origin),
    isArticleId(id) ? articlesRepo.get(tenantId, id, false) : null,
  ]);
  if (a?.status !== 'published') throw new NotFound('article');
  // An article is the same text until its updatedAt moves: the warm container reduces it once.
  const blocks = await articleBlocks.get(`${tenantId}/${a.id}`, Date.parse(a.updatedAt), async () =>
    markdownToBlocks(a.body),
  );
  return { article: { id: a.id, title: a.title, body: a.body, url: a.url, updatedAt: a.updatedAt, blocks } };
}
