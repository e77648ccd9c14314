import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ArticleStatus } from '#shared/core/vocabulary.ts';
import type { StoredArticle } from '#shared/nlu/index.ts';
import { db, tableName } from './client.ts';
import { keys, timeSortKey, type Key } from './keys.ts';

type Item = Record<string, unknown>;
import { eventsRepo } from './events.ts';
import { hitAdd, hitShardKeys, STATS_SHARDS } from './stats.ts';
import { batchGet, keyString, queryAll, queryPage, readKeys, type Page } from './lists.ts';
import { transact, type TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

// Help articles. Each has two items: the article as written (Markdown, listed on gsi1/gsi2) and
// its searchable form in the tenant's KB partition (plain-text passages, no Markdown), which is
// all that the chat's index and the admin's `q` search read. A URL guard item makes URLs unique
// (an import replaces the article of a URL). Hit counts live on sharded items, like intents'.
//
// Every write bumps the tenant's `articlesVersion` in its transaction: the chat functions rebuild
// their cached index when it moves. An import holds `articlesImportId` on the tenant while it
// writes in several transactions; see shared/domain/knowledge/articles.ts for the protocol.

export interface Article {
  id: string;
  title: string;
  body: string;
  url: string | null;
  tags: string[];
  questions: string[];
  status: ArticleStatus;
  createdAt: string;
  updatedAt: string;
}

/** The searchable form: what prepareArticle made of the article, and its list fields. */
export interface Searchable extends StoredArticle {
  status: ArticleStatus;
  createdAt: string;
  updatedAt: string;
}

/** A searchable item as stored: written by an import, it keeps the form it replaced (`prev`, null for a new article). */
export interface SearchableItem extends Searchable {
  importId?: string;
  prev?: Searchable | null;
}

export const MAX_ARTICLES = 1000;

const ARTICLE_FIELDS = ['id', 'title', 'body', 'url', 'tags', 'questions', 'status', 'createdAt', 'updatedAt'] as const;
const SEARCHABLE_FIELDS = [
  'id',
  'title',
  'url',
  'tags',
  'questions',
  'passages',
  'format',
  'status',
  'createdAt',
  'updatedAt',
] as const;
const pick = <T>(item: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => item[f] !== undefined).map((f) => [f, item[f]])) as T;
const asArticle = (item: Record<string, unknown>): Article => pick<Article>(item, ARTICLE_FIELDS);
const asSearchable = (item: Record<string, unknown>): Searchable => pick<Searchable>(item, SEARCHABLE_FIELDS);
const asSearchableItem = (item: Record<string, unknown>): SearchableItem => {
  const s: SearchableItem = asSearchable(item);
  if (typeof item.importId === 'string') {
    s.importId = item.importId;
    s.prev = (item.prev as Searchable | null | undefined) ?? null;
  }
  return s;
};

const articleItem = (tenantId: string, a: Article, extra: Record<string, unknown> = {}) => ({
  ...keys.article(tenantId, a.id),
  type: 'article',
  ...a,
  ...extra,
  ...keys.articlesIndex(tenantId),
  gsi1sk: timeSortKey(a.createdAt, a.id),
  ...keys.articlesByStatusIndex(tenantId, a.status),
  gsi2sk: timeSortKey(a.createdAt, a.id),
});
const searchableItem = (tenantId: string, s: Searchable, extra: Record<string, unknown> = {}) => ({
  ...keys.searchable(tenantId, s.id),
  type: 'searchable',
  ...s,
  ...extra,
});
const urlGuard = (tenantId: string, url: string, articleId: string) => ({
  ...keys.articleUrl(tenantId, url),
  type: 'articleUrl',
  articleId,
  url,
});

const changed = (tenantId: string) => eventsRepo.tx.contentChanged(tenantId, 'articles');

const NO_IMPORT = 'attribute_not_exists(articlesImportId)';

/** The tenant's side of a single write: the version, the count (the 1,001st fails here), no import running. */
const tenantBump = (tenantId: string, count: 1 | 0 | -1): TxItem => ({
  Update: {
    Key: keys.tenant(tenantId),
    UpdateExpression: count === 0 ? 'ADD articlesVersion :one' : 'ADD articlesVersion :one, articleCount :c',
    ConditionExpression:
      `attribute_exists(pk) AND ${NO_IMPORT}` +
      (count === 1 ? ' AND (attribute_not_exists(articleCount) OR articleCount < :max)' : ''),
    ExpressionAttributeValues: { ':one': 1, ':c': count, ':max': MAX_ARTICLES },
  },
});

/** Index of the tenant's item in a single write's transaction (its condition failing: an import runs, or the limit). */
export const TENANT_INDEX = 0;

/** Drops a deleted article's counters from every shard, so that they do not pile up. */
const hitsRemove = (tenantId: string, articleId: string): TxItem[] => {
  const key = keys.articleHits(tenantId);
  return Array.from({ length: STATS_SHARDS }, (_, shard) => ({
    Update: {
      Key: { pk: key.pk, sk: `${key.sk}#${shard}` },
      UpdateExpression: 'REMOVE #h',
      ExpressionAttributeNames: { '#h': `h_${articleId}` },
    },
  }));
};

/** The raw items (import marks included) of some articles. */
async function itemsOf(tenantId: string, ids: string[]) {
  const items = await batchGet(
    ids.flatMap((id) => [keys.article(tenantId, id), keys.searchable(tenantId, id)]),
    true,
  );
  const articles = new Map<string, Record<string, unknown>>();
  const searchables = new Map<string, Record<string, unknown>>();
  for (const i of items) (i.type === 'article' ? articles : searchables).set(i.id as string, i);
  return { articles, searchables };
}

export const articlesRepo = {
  /** Hit counts of every article: the shards summed. */
  async hits(tenantId: string): Promise<Map<string, number>> {
    return (await articlesRepo.hitsWith(tenantId, [])).hits;
  },

  /**
   * The hit counts and the items at `also` (by `keyString`), in one BatchGet, read strongly: the
   * shards are a fixed set of keys (`hitAdd`), so they need no Query of their own.
   */
  async hitsWith(tenantId: string, also: Key[]): Promise<{ hits: Map<string, number>; also: Map<string, Item> }> {
    const shardKeys = hitShardKeys(keys.articleHits(tenantId));
    const items = await readKeys([...shardKeys, ...also], true);
    const hits = new Map<string, number>();
    for (const k of shardKeys) {
      for (const [a, v] of Object.entries(items.get(keyString(k)) ?? {}))
        if (a.startsWith('h_') && typeof v === 'number') hits.set(a.slice(2), (hits.get(a.slice(2)) ?? 0) + v);
    }
    return { hits, also: items };
  },

  /** An article, the hit counts and the items at `also`: one BatchGet. */
  async getWith(
    tenantId: string,
    id: string,
    also: Key[],
  ): Promise<{ article: Article | null; hits: Map<string, number>; also: Map<string, Item> }> {
    const key = keys.article(tenantId, id);
    const r = await articlesRepo.hitsWith(tenantId, [key, ...also]);
    const item = r.also.get(keyString(key));
    return { article: item ? asArticle(item) : null, hits: r.hits, also: r.also };
  },

  async get(tenantId: string, id: string, consistent = true): Promise<Article | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.article(tenantId, id), ConsistentRead: consistent }),
    );
    return r.Item ? asArticle(r.Item) : null;
  },

  /** Newest first, all or of one status. */
  async page(
    tenantId: string,
    status: ArticleStatus | undefined,
    limit: number,
    cursor?: string,
  ): Promise<Page<Article>> {
    const q = status
      ? {
          index: 'gsi2' as const,
          partition: { name: 'gsi2pk', value: keys.articlesByStatusIndex(tenantId, status).gsi2pk },
        }
      : { index: 'gsi1' as const, partition: { name: 'gsi1pk', value: keys.articlesIndex(tenantId).gsi1pk } };
    const page = await queryPage(q, { tenantId, list: 'articles', filters: { status } }, limit, cursor);
    return { items: page.items.map(asArticle), nextCursor: page.nextCursor };
  },

  /** Every searchable item of the tenant, drafts too, as stored. */
  async searchables(tenantId: string): Promise<SearchableItem[]> {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.searchablePartition(tenantId) },
      consistent: true,
    });
    return items.map(asSearchableItem);
  },

  /** The article ids that own these URLs (one BatchGet for up to 100), read strongly. */
  async urlOwners(tenantId: string, urls: string[]): Promise<Map<string, string>> {
    const byKey = new Map(urls.map((u) => [keys.articleUrl(tenantId, u).sk, u]));
    const items = await batchGet(
      [...byKey.keys()].map((sk) => ({ pk: keys.tenant(tenantId).pk, sk })),
      true,
    );
    return new Map(items.map((i) => [byKey.get(i.sk as string)!, i.articleId as string]));
  },

  /** Articles and their searchable forms by id, read strongly (the marks of an import left out). */
  async many(
    tenantId: string,
    ids: string[],
  ): Promise<{ articles: Map<string, Article>; searchables: Map<string, Searchable> }> {
    const items = await itemsOf(tenantId, ids);
    return {
      articles: new Map([...items.articles].map(([id, i]) => [id, asArticle(i)])),
      searchables: new Map([...items.searchables].map(([id, i]) => [id, asSearchable(i)])),
    };
  },

  /** Creates an article. Fails at TENANT_INDEX (an import runs, or the limit) or 3 (its URL is taken). */
  async create(tenantId: string, a: Article, s: Searchable, audit: TxItem): Promise<void> {
    await transact([
      tenantBump(tenantId, 1),
      { Put: { Item: articleItem(tenantId, a), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: searchableItem(tenantId, s) } },
      ...(a.url
        ? [{ Put: { Item: urlGuard(tenantId, a.url, a.id), ConditionExpression: 'attribute_not_exists(pk)' } }]
        : []),
      audit,
      changed(tenantId),
    ]);
  },

  /**
   * Full replacement, conditional on the `updatedAt` read (index 1). A new URL moves the guard:
   * the new one is put conditionally (index 3: URL taken), the old one deleted. `extra` items (a
   * taught example) go last.
   */
  async replace(
    tenantId: string,
    before: Article,
    a: Article,
    s: Searchable,
    audit: TxItem,
    extra: TxItem[] = [],
  ): Promise<void> {
    const items: TxItem[] = [
      tenantBump(tenantId, 0),
      {
        Put: {
          Item: articleItem(tenantId, a),
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': before.updatedAt },
        },
      },
      { Put: { Item: searchableItem(tenantId, s) } },
    ];
    const sameUrl =
      (before.url && a.url && keys.articleUrl(tenantId, before.url).sk === keys.articleUrl(tenantId, a.url).sk) ||
      (!before.url && !a.url);
    if (!sameUrl) {
      if (a.url)
        items.push({ Put: { Item: urlGuard(tenantId, a.url, a.id), ConditionExpression: 'attribute_not_exists(pk)' } });
      if (before.url) items.push({ Delete: { Key: keys.articleUrl(tenantId, before.url) } });
    }
    await transact([...items, audit, ...extra, changed(tenantId)]);
  },

  async remove(tenantId: string, a: Article, audit: TxItem): Promise<void> {
    await transact([
      tenantBump(tenantId, -1),
      {
        Delete: {
          Key: keys.article(tenantId, a.id),
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': a.updatedAt },
        },
      },
      { Delete: { Key: keys.searchable(tenantId, a.id) } },
      ...(a.url ? [{ Delete: { Key: keys.articleUrl(tenantId, a.url) } }] : []),
      ...hitsRemove(tenantId, a.id),
      audit,
      changed(tenantId),
    ]);
  },

  tx: {
    /** One hit of an article (the message's conversation picks the shard). */
    hit: (tenantId: string, articleId: string, seed: string): TxItem =>
      hitAdd(keys.articleHits(tenantId), articleId, seed),
  },
};

// ---- imports: several transactions under a lock on the tenant -----------------------------------

/** One article of an import: new (`before` null) or replacing the article that owns its URL. */
export interface ImportWrite {
  article: Article;
  searchable: Searchable;
  before: { article: Article; searchable: Searchable } | null;
}

export const importRepo = {
  /**
   * Takes the tenant's import lock, on the condition that no write happened since `version` was
   * read (so the plan still holds) and that the new articles fit the limit.
   */
  async lock(tenantId: string, importId: string, version: number, created: number): Promise<void> {
    await transact([
      {
        Update: {
          Key: keys.tenant(tenantId),
          UpdateExpression: 'SET articlesImportId = :id, articlesImportAt = :at',
          ConditionExpression:
            `attribute_exists(pk) AND ${NO_IMPORT} AND ` +
            `${version === 0 ? 'attribute_not_exists(articlesVersion)' : 'articlesVersion = :v'} AND ` +
            '(attribute_not_exists(articleCount) OR articleCount <= :room)',
          ExpressionAttributeValues: {
            ':id': importId,
            ':at': clock.iso(),
            ':room': MAX_ARTICLES - created,
            ':v': version,
          },
        },
      },
    ]);
  },

  /**
   * The items of some articles, in one transaction that holds only while the lock is ours. Each
   * item carries the import id and what it replaces (`prev`), so that readers keep seeing the
   * previous articles until the commit, and a rollback (also after a crash) can restore them.
   */
  async write(tenantId: string, importId: string, writes: ImportWrite[]): Promise<void> {
    const items: TxItem[] = [
      {
        ConditionCheck: {
          Key: keys.tenant(tenantId),
          ConditionExpression: 'articlesImportId = :id',
          ExpressionAttributeValues: { ':id': importId },
        },
      },
    ];
    for (const w of writes) {
      const mark = { importId, prev: w.before ? w.before.article : null };
      items.push(
        w.before
          ? {
              Put: {
                Item: articleItem(tenantId, w.article, mark),
                ConditionExpression: 'updatedAt = :u',
                ExpressionAttributeValues: { ':u': w.before.article.updatedAt },
              },
            }
          : { Put: { Item: articleItem(tenantId, w.article, mark), ConditionExpression: 'attribute_not_exists(pk)' } },
      );
      items.push({
        Put: { Item: searchableItem(tenantId, w.searchable, { importId, prev: w.before?.searchable ?? null }) },
      });
      if (!w.before && w.article.url) {
        items.push({
          Put: {
            Item: urlGuard(tenantId, w.article.url, w.article.id),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
      }
    }
    await transact(items);
  },

  /** Items of one article in `write`: a chunk holds at most MAX_TX_ITEMS - 1 of them besides the lock check. */
  itemsPerWrite: (w: ImportWrite) => (!w.before && w.article.url ? 3 : 2),

  /** Makes the import visible: version bump, count, lock released, audit entry, in one transaction. */
  async commit(tenantId: string, importId: string, created: number, audit: TxItem): Promise<void> {
    await transact([
      {
        Update: {
          Key: keys.tenant(tenantId),
          UpdateExpression: 'ADD articlesVersion :one, articleCount :c REMOVE articlesImportId, articlesImportAt',
          ConditionExpression: 'articlesImportId = :id',
          ExpressionAttributeValues: { ':one': 1, ':c': created, ':id': importId },
        },
      },
      audit,
      changed(tenantId),
    ]);
  },

  /** The searchable items an import wrote (found by its id), with their article items. */
  async written(tenantId: string, importId: string) {
    const items = (
      await queryAll({ partition: { name: 'pk', value: keys.searchablePartition(tenantId) }, consistent: true })
    ).filter((i) => i.importId === importId);
    const { articles } = await itemsOf(
      tenantId,
      items.map((i) => i.id as string),
    );
    return items.map((s) => ({ searchable: s, article: articles.get(s.id as string) ?? null }));
  },

  /** Undoes one article of an import, only where the items still carry the import's id. */
  async undo(
    tenantId: string,
    importId: string,
    w: { searchable: Record<string, unknown>; article: Record<string, unknown> | null },
  ): Promise<void> {
    const ours = { ConditionExpression: 'importId = :id', ExpressionAttributeValues: { ':id': importId } };
    const id = w.searchable.id as string;
    const prevArticle = (w.article?.prev ?? null) as Article | null;
    const prevSearchable = (w.searchable.prev ?? null) as Searchable | null;
    const items: TxItem[] = [];
    if (prevSearchable) {
      if (prevArticle) items.push({ Put: { Item: articleItem(tenantId, prevArticle), ...ours } });
      items.push({ Put: { Item: searchableItem(tenantId, prevSearchable), ...ours } });
    } else {
      if (w.article) items.push({ Delete: { Key: keys.article(tenantId, id), ...ours } });
      items.push({ Delete: { Key: keys.searchable(tenantId, id), ...ours } });
      const url = w.searchable.url as string | null;
      if (url) {
        items.push({
          Delete: {
            Key: keys.articleUrl(tenantId, url),
            ConditionExpression: 'articleId = :a',
            ExpressionAttributeValues: { ':a': id },
          },
        });
      }
    }
    await transact(items);
  },

  /** Releases the lock after a rollback; the version moves so that no container keeps what it built meanwhile. */
  async release(tenantId: string, importId: string): Promise<void> {
    await transact([
      {
        Update: {
          Key: keys.tenant(tenantId),
          UpdateExpression: 'ADD articlesVersion :one REMOVE articlesImportId, articlesImportAt',
          ConditionExpression: 'articlesImportId = :id',
          ExpressionAttributeValues: { ':one': 1, ':id': importId },
        },
      },
      changed(tenantId),
    ]);
  },
};
