import { describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import type { ImportWrite, Searchable, SearchableItem } from '#shared/data/articles.ts';
import { articleChanges, chunkWrites } from '#shared/domain/knowledge/articles.ts';
import { isArticleId, knowledgeReply, visibleArticles } from '#shared/domain/knowledge/knowledge.ts';
import { mergeConfig } from '#shared/domain/tenants/settings.ts';
import { tenantSettings } from '#shared/domain/tenants/tenant-config.ts';
import { ArticleBody, ImportBody } from '#shared/edge/routes/articles.ts';
import { buildKnowledgeIndex, DEFAULT_ARTICLE_THRESHOLD, prepareArticle } from '#shared/nlu/index.ts';

// The knowledge base's pure parts: what readers see during an import, the reply, the import's
// transactions, the settings and the request schemas.

const form = (id: string, title: string, status: Searchable['status'] = 'published'): Searchable => ({
  ...prepareArticle({ id, title, body: `${title}. More about ${title}.` }),
  status,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
});

describe('visibleArticles', () => {
  const old = form('a', 'Old text');
  const items: SearchableItem[] = [
    { ...form('a', 'New text'), importId: 'imp_1', prev: old },
    { ...form('b', 'Brand new'), importId: 'imp_1', prev: null },
    { ...form('c', 'Untouched') },
    { ...form('d', 'From an earlier import'), importId: 'imp_0', prev: form('d', 'Older') },
  ];
  it('shows what a running import replaced, and hides what it adds', () => {
    expect(visibleArticles(items, 'imp_1').map((a) => a.title)).toEqual([
      'Old text',
      'Untouched',
      'From an earlier import',
    ]);
  });
  it('shows every item as written once no import runs, without the import marks', () => {
    const seen = visibleArticles(items, undefined);
    expect(seen.map((a) => a.title)).toEqual(['New text', 'Brand new', 'Untouched', 'From an earlier import']);
    for (const a of seen) expect(Object.keys(a)).not.toContain('prev');
  });
});

describe('answers', () => {
  const index = buildKnowledgeIndex([
    prepareArticle({
      id: 'rewards',
      title: 'Loyalty points',
      url: 'https://help.example/points',
      body: 'Points expire after **12 months**.',
    }),
    prepareArticle({ id: 'gifts', title: 'Gift wrapping', body: 'We wrap presents in recycled paper.' }),
  ]);
  it('reply: the passage, then the title and url (or the title alone)', () => {
    expect(knowledgeReply({ answer: 'It does.', title: 'T', url: 'https://x.example' })).toBe(
      'It does.\n\nT: https://x.example',
    );
    expect(knowledgeReply({ answer: 'It does.', title: 'T', url: null })).toBe('It does.\n\nT');
    expect(knowledgeReply({ answer: '', title: 'T', url: null })).toBe('T');
  });
  it('ranks every matching article for the admin list', () => {
    expect(
      index
        .rankAll('points wrapping')
        .map((r) => r.articleId)
        .sort(),
    ).toEqual(['gifts', 'rewards']);
    expect(index.rankAll('capital of france')).toEqual([]);
  });
  it('pages through the same order as rankAll sorted by score, then id, without ranking the whole list', () => {
    const many = buildKnowledgeIndex(
      Array.from({ length: 40 }, (_, i) =>
        prepareArticle({
          id: `art_${String((i * 7) % 40).padStart(2, '0')}`,
          title: i % 2 ? 'Loyalty points' : `Points and gift wrapping ${i % 5}`,
          body: `Points expire after ${i % 3 ? 12 : 6} months. Wrapping is free.${' More.'.repeat(i % 4)}`,
        }),
      ),
    );
    for (const q of ['points wrapping', 'do my points expire', 'capital of france']) {
      const all = many.rankAll(q).sort((x, y) => y.confidence - x.confidence || (x.articleId < y.articleId ? -1 : 1));
      for (const limit of [1, 3, 7, 100]) {
        const paged: Array<{ articleId: string; confidence: number }> = [];
        let last: { articleId: string; confidence: number } | null = null;
        for (;;) {
          const page = many.rankPage(q, limit, last);
          paged.push(...page.items);
          expect(page.more).toBe(paged.length < all.length);
          if (!page.more) break;
          last = page.items.at(-1)!;
        }
        expect(paged).toEqual(all);
      }
    }
  });
  it('article ids are art_ and a ULID', () => {
    expect(isArticleId('art_01M848CT5YPC3NTP2572A7FFDF')).toBe(true);
    for (const id of ['art_01m848ct5ypc3ntp2572a7ffdf', 'nope', 'art_', `art_${'0'.repeat(27)}`, 'ARTICLE#x'])
      expect(isArticleId(id)).toBe(false);
  });
});

describe('import transactions', () => {
  const write = (i: number, url: string | null, replacing: boolean): ImportWrite => {
    const article = {
      id: `art_${i}`,
      title: 't',
      body: 'b',
      url,
      tags: [],
      questions: [],
      status: 'published' as const,
      createdAt: 'c',
      updatedAt: 'u',
    };
    const searchable = form(`art_${i}`, 't');
    return { article, searchable, before: replacing ? { article, searchable } : null };
  };
  it('cut into transactions of at most 99 items (plus the lock check), an article never split', () => {
    const writes = [
      ...Array.from({ length: 60 }, (_, i) => write(i, `https://h.example/${i}`, false)), // 3 items each
      ...Array.from({ length: 30 }, (_, i) => write(100 + i, `https://h.example/r${i}`, true)), // 2 each
      ...Array.from({ length: 10 }, (_, i) => write(200 + i, null, false)), // 2 each
    ];
    const chunks = chunkWrites(writes);
    const size = (c: ImportWrite[]) => c.reduce((n, w) => n + (!w.before && w.article.url ? 3 : 2), 0);
    for (const c of chunks) expect(size(c)).toBeLessThanOrEqual(99);
    expect(chunks.flat()).toEqual(writes);
    expect(chunks).toHaveLength(Math.ceil((60 * 3 + 30 * 2 + 10 * 2) / 99));
    expect(chunkWrites([])).toEqual([]);
  });
  it('audit changes name each changed field, long values summarised', () => {
    const before = {
      title: 'A',
      body: 'x'.repeat(5000),
      url: null,
      tags: [],
      questions: [],
      status: 'published' as const,
    };
    expect(articleChanges(before, { ...before, title: 'B', body: 'short' })).toEqual({
      title: { from: 'A', to: 'B' },
      body: { from: { truncated: true }, to: 'short' },
    });
    expect(Object.keys(articleChanges(null, before))).toEqual(['title', 'body', 'tags', 'questions', 'status']);
  });
});

describe('article keys', () => {
  it('one URL guard per URL as the WHATWG parser writes it, hashed to a short sort key', () => {
    const k = keys.articleUrl('t1', 'https://Help.Example.com/a');
    expect(k).toEqual(keys.articleUrl('t1', 'https://help.example.com/a'));
    expect(k).not.toEqual(keys.articleUrl('t1', 'https://help.example.com/b'));
    expect(k).not.toEqual(keys.articleUrl('t2', 'https://help.example.com/a'));
    expect(keys.articleUrl('t1', `https://help.example.com/${'a'.repeat(2000)}`).sk.length).toBeLessThan(64);
    expect(keys.article('t1', 'art_X').pk).toBe(keys.tenant('t1').pk);
    expect(keys.searchable('t1', 'art_X').pk).toBe('TENANT#t1#KB');
  });
});

describe('knowledge settings', () => {
  it('defaults to on at the default threshold; a tenant may change both', () => {
    expect(tenantSettings({})).toMatchObject({ knowledgeEnabled: true, knowledgeThreshold: DEFAULT_ARTICLE_THRESHOLD });
    expect(tenantSettings({ knowledge: { enabled: false, threshold: 0.7 } })).toMatchObject({
      knowledgeEnabled: false,
      knowledgeThreshold: 0.7,
    });
    expect(tenantSettings({ knowledge: { threshold: 'high' } }).knowledgeThreshold).toBe(DEFAULT_ARTICLE_THRESHOLD);
  });
  it('refuses bad values of the known keys', () => {
    expect(mergeConfig({}, { knowledge: { enabled: false, threshold: 0 } })).toEqual({
      knowledge: { enabled: false, threshold: 0 },
    });
    for (const bad of [{ enabled: 1 }, { threshold: 2 }, { threshold: null, enabled: 'yes' }, []]) {
      expect(() => mergeConfig({}, { knowledge: bad })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });
});

describe('request schemas', () => {
  it('an article: defaults, trimming, https only', () => {
    expect(ArticleBody.parse({ title: ' T ', body: 'B' })).toEqual({
      title: 'T',
      body: 'B',
      tags: [],
      questions: [],
      status: 'published',
    });
    expect(ArticleBody.safeParse({ title: 'T', body: 'B', url: 'https://help.example/x' }).success).toBe(true);
    expect(ArticleBody.safeParse({ title: 'T', body: 'B', url: null }).success).toBe(true);
    for (const url of ['http://help.example/x', 'ftp://help.example', 'https://', 'javascript:alert(1)', 42]) {
      expect(ArticleBody.safeParse({ title: 'T', body: 'B', url }).success, String(url)).toBe(false);
    }
  });
  it('an import names the failing article by index', () => {
    const r = ImportBody.safeParse({
      articles: [
        { title: 'a', body: 'b' },
        { title: 'a', body: 'b' },
        { title: 'a', body: '' },
      ],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['articles.2.body']);
  });
});
