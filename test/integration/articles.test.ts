import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { demoArticles } from '../../local/demo/articles.ts';
import {
  admin,
  chat,
  expectProblem,
  memberToken,
  newTenant,
  request,
  send,
  untilIndexed,
  type TestTenant,
} from './client.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// The knowledge base (docs/API.md, The knowledge base): the article routes, the import, and answers from
// articles on the chat path.

const TABLE = 'support-assistant-test';
const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: localDatabaseCredentials(TABLE),
});
const ddb = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

const UNKNOWN_IDS = [
  'nope',
  `art_${'0'.repeat(26)}`,
  randomUUID(),
  'art_01M848CT5YPC3NTP2572A7FFDF',
  'x'.repeat(300),
  'a%23b',
];

const rewards = {
  title: 'Rewards: loyalty points',
  url: 'https://help.shop.example/rewards',
  tags: ['rewards'],
  questions: ['How do I earn points?'],
  body:
    'Every dollar you spend earns one point once your order is delivered. 100 points are worth a **$5 voucher**.\n\n' +
    'Points expire 12 months after the order that earned them.',
};
const gifts = {
  title: 'Gift wrapping and gift messages',
  body: 'Tick *This is a gift* at checkout to have each item wrapped in recycled paper. Your message is printed on a card.',
};
const POINTS_QUESTION = 'do my reward points expire?';
const GIFT_QUESTION = 'can you wrap the present in recycled paper with a card?';

const create = async (t: TestTenant, body: Record<string, unknown>, token = t.ownerToken) => {
  const r = await request('POST', admin('/articles'), { token, body });
  if (r.status !== 201) throw new Error(`create article: ${r.status} ${r.text}`);
  return r.body as { id: string } & Record<string, unknown>;
};
const get = (t: TestTenant, id: string) =>
  request('GET', admin(`/articles/${encodeURIComponent(id)}`), { token: t.ownerToken });
const list = (t: TestTenant, qs = '') => request('GET', admin(`/articles${qs}`), { token: t.ownerToken });
const importArticles = (t: TestTenant, articles: unknown[], token = t.ownerToken) =>
  request('POST', admin('/articles/import'), { token, body: { articles } });
const putSettings = (t: TestTenant, config: Record<string, unknown>) =>
  request('PUT', admin('/settings'), { token: t.ownerToken, body: { config } });
const tenantItem = async (t: TestTenant) =>
  (
    await ddb.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `TENANT#${t.tenantId}`, sk: 'TENANT' }, ConsistentRead: true }),
    )
  ).Item!;

describe('article routes', () => {
  it('create, read, replace and delete, each audited and taking effect at once', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    expect(a).toEqual({
      id: expect.stringMatching(/^art_[0-9A-Z]{26}$/),
      title: rewards.title,
      body: rewards.body,
      url: rewards.url,
      tags: ['rewards'],
      questions: rewards.questions,
      status: 'published',
      hits: 0,
      indexing: true,
      createdAt: expect.any(String),
      updatedAt: a.createdAt,
    });
    // Indexing runs in the background: the flag may already be down.
    expect((await get(t, a.id)).body).toEqual({ ...a, indexing: expect.any(Boolean) });

    // PUT is a full replacement: what is left out takes its default.
    const put = await request('PUT', admin(`/articles/${a.id}`), {
      token: t.ownerToken,
      body: { title: '  Rewards  ', body: 'Points never expire.' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: a.id,
      title: 'Rewards',
      body: 'Points never expire.',
      url: null,
      tags: [],
      questions: [],
      status: 'published',
      createdAt: a.createdAt,
    });
    expect(put.body.updatedAt > (a.updatedAt as string)).toBe(true);
    // The same body again changes nothing.
    const again = await request('PUT', admin(`/articles/${a.id}`), {
      token: t.ownerToken,
      body: { title: 'Rewards', body: 'Points never expire.' },
    });
    expect(again.body).toEqual({ ...put.body, indexing: expect.any(Boolean) });

    const del = await request('DELETE', admin(`/articles/${a.id}`), { token: t.ownerToken });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectProblem(await get(t, a.id), 404, 'NOT_FOUND');
    expectProblem(await request('DELETE', admin(`/articles/${a.id}`), { token: t.ownerToken }), 404, 'NOT_FOUND');

    const audit = await request('GET', admin('/audit?category=knowledge'), { token: t.ownerToken });
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual([
      'article.deleted',
      'article.updated',
      'article.created',
    ]);
    expect(audit.body.items[1]).toMatchObject({
      category: 'knowledge',
      actor: { type: 'user', id: t.ownerSub },
      target: { type: 'article', id: a.id },
      changes: { title: { from: rewards.title, to: 'Rewards' }, url: { from: rewards.url, to: null } },
    });
    // Three writes, three version bumps (the unchanged PUT wrote nothing).
    expect((await tenantItem(t)).articlesVersion).toBe(3);
    expect((await tenantItem(t)).articleCount).toBe(0);
  });

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const t = await newTenant();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ body: 'x' }, 'title'],
      [{ title: '   ', body: 'x' }, 'title'],
      [{ title: 't'.repeat(201), body: 'x' }, 'title'],
      [{ title: 't', body: 'b'.repeat(20_001) }, 'body'],
      [{ title: 't', body: 'x', url: 'http://help.example/a' }, 'url'],
      [{ title: 't', body: 'x', url: 'not a url' }, 'url'],
      [{ title: 't', body: 'x', url: `https://help.example/${'a'.repeat(2000)}` }, 'url'],
      [{ title: 't', body: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
      [{ title: 't', body: 'x', tags: ['t'.repeat(41)] }, 'tags.0'],
      [{ title: 't', body: 'x', tags: [''] }, 'tags.0'],
      [{ title: 't', body: 'x', questions: Array.from({ length: 21 }, (_, i) => `q${i}`) }, 'questions'],
      [{ title: 't', body: 'x', questions: ['q'.repeat(301)] }, 'questions.0'],
      [{ title: 't', body: 'x', status: 'archived' }, 'status'],
      [{ title: 't', body: 'x', hits: 3 }, 'hits'],
      // Markdown nested deeper than the parser reads.
      [{ title: 't', body: `${'>'.repeat(19_990)} x` }, 'body'],
    ];
    for (const [body, path] of cases) {
      const r = await request('POST', admin('/articles'), { token: t.ownerToken, body });
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    // The limits themselves are accepted (emoji count as one character).
    const edge = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: {
        title: '🙂'.repeat(200),
        body: 'b'.repeat(20_000),
        tags: Array.from({ length: 20 }, () => 't'.repeat(40)),
        questions: Array.from({ length: 20 }, () => 'q'.repeat(300)),
      },
    });
    expect(edge.status).toBe(201);
    const a = await create(t, gifts);
    expectProblem(
      await request('PUT', admin(`/articles/${a.id}`), { token: t.ownerToken, body: { title: '', body: 'x' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await list(t)).body.items).toHaveLength(2);
  });

  it('an unknown id of any shape is 404, on every article route', async () => {
    const t = await newTenant();
    for (const id of UNKNOWN_IDS) {
      const p = encodeURIComponent(id);
      expectProblem(await request('GET', admin(`/articles/${p}`), { token: t.ownerToken }), 404, 'NOT_FOUND');
      expectProblem(
        await request('PUT', admin(`/articles/${p}`), { token: t.ownerToken, body: gifts }),
        404,
        'NOT_FOUND',
      );
      expectProblem(await request('DELETE', admin(`/articles/${p}`), { token: t.ownerToken }), 404, 'NOT_FOUND');
      expectProblem(await request('GET', chat(`/articles/${p}`), { widgetKey: t.widgetKey }), 404, 'NOT_FOUND');
    }
  });

  it('viewers and agents read; only admins and owners write', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    const [viewer, agent, adm] = await Promise.all([
      memberToken(t, 'viewer'),
      memberToken(t, 'agent'),
      memberToken(t, 'admin'),
    ]);
    for (const who of [viewer, agent]) {
      expect((await request('GET', admin('/articles'), { token: who.token })).status).toBe(200);
      expect((await request('GET', admin('/articles?q=points'), { token: who.token })).status).toBe(200);
      expect((await request('GET', admin(`/articles/${a.id}`), { token: who.token })).status).toBe(200);
      expectProblem(await request('POST', admin('/articles'), { token: who.token, body: gifts }), 403, 'FORBIDDEN');
      expectProblem(
        await request('PUT', admin(`/articles/${a.id}`), { token: who.token, body: gifts }),
        403,
        'FORBIDDEN',
      );
      expectProblem(await request('DELETE', admin(`/articles/${a.id}`), { token: who.token }), 403, 'FORBIDDEN');
      expectProblem(await importArticles(t, [gifts], who.token), 403, 'FORBIDDEN');
    }
    expect((await request('POST', admin('/articles'), { token: adm.token, body: gifts })).status).toBe(201);
    expect((await importArticles(t, [{ ...gifts, url: 'https://help.shop.example/gifts' }], adm.token)).status).toBe(
      200,
    );
    expect((await request('PUT', admin(`/articles/${a.id}`), { token: adm.token, body: rewards })).status).toBe(200);
    expect((await request('DELETE', admin(`/articles/${a.id}`), { token: adm.token })).status).toBe(204);
  });

  it("another tenant's article is 404 for admins and the widget, and never answers its messages", async () => {
    const [a, b] = await Promise.all([newTenant(), newTenant()]);
    const art = await create(b, rewards);
    expectProblem(await request('GET', admin(`/articles/${art.id}`), { token: a.ownerToken }), 404, 'NOT_FOUND');
    expectProblem(await request('GET', chat(`/articles/${art.id}`), { widgetKey: a.widgetKey }), 404, 'NOT_FOUND');
    expect((await list(a)).body.items).toEqual([]);
    expect((await list(a, '?q=points')).body.items).toEqual([]);
    const r = await send(a, POINTS_QUESTION);
    expect(r.body.metadata.intentDetected).toBe('fallback');
    expect((await send(b, POINTS_QUESTION)).body.metadata.intentDetected).toBe('knowledge_base');
  });

  it('a url is one article: a second article with it is 409', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    expectProblem(
      await request('POST', admin('/articles'), { token: t.ownerToken, body: { ...gifts, url: rewards.url } }),
      409,
      'CONFLICT',
    );
    // The same URL written differently (host case) is the same URL.
    expectProblem(
      await request('POST', admin('/articles'), {
        token: t.ownerToken,
        body: { ...gifts, url: 'https://HELP.shop.example/rewards' },
      }),
      409,
      'CONFLICT',
    );
    const g = await create(t, gifts);
    expectProblem(
      await request('PUT', admin(`/articles/${g.id}`), { token: t.ownerToken, body: { ...gifts, url: rewards.url } }),
      409,
      'CONFLICT',
    );
    // Moving an article to a new URL frees the old one.
    expect(
      (
        await request('PUT', admin(`/articles/${a.id}`), {
          token: t.ownerToken,
          body: { ...rewards, url: 'https://help.shop.example/points' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await request('PUT', admin(`/articles/${g.id}`), { token: t.ownerToken, body: { ...gifts, url: rewards.url } }))
        .status,
    ).toBe(200);
  });
});

describe('GET /articles', () => {
  it('pages newest first, filters by status, and ranks by relevance with q', async () => {
    const t = await newTenant();
    const made = [];
    for (const [i, a] of demoArticles.entries())
      made.push(await create(t, { ...a, status: i % 3 === 0 ? 'draft' : 'published' }));
    const ids = made.map((a) => a.id).reverse();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await list(t, `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((i: { id: string }) => i.id));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const first = (await list(t, '?limit=1')).body.items[0];
    expect(Object.keys(first).sort()).toEqual([
      'hits',
      'id',
      'indexing',
      'status',
      'tags',
      'title',
      'updatedAt',
      'url',
    ]);

    const drafts = (await list(t, '?status=draft')).body.items.map((i: { id: string }) => i.id);
    expect(drafts).toEqual(
      made
        .filter((_, i) => i % 3 === 0)
        .map((a) => a.id)
        .reverse(),
    );

    const ranked = await list(t, `?q=${encodeURIComponent('when do my reward points expire')}`);
    expect(ranked.body.items[0].title).toBe('Demo Shop Rewards: loyalty points');
    expect(ranked.body.items.length).toBeLessThan(made.length); // only what matches
    // Drafts are searched too (admins look for them), unless filtered out.
    const draftTitle = demoArticles[0]!.title;
    expect((await list(t, `?q=${encodeURIComponent('saturday delivery cost')}`)).body.items[0].title).toBe(draftTitle);
    expect(
      (await list(t, `?status=published&q=${encodeURIComponent('saturday delivery cost')}`)).body.items.map(
        (i: { title: string }) => i.title,
      ),
    ).not.toContain(draftTitle);
  });

  it('pages a ranking with a cursor bound to its query', async () => {
    const t = await newTenant();
    const all = Array.from({ length: 7 }, (_, i) => ({
      title: `Store ${i}: opening hours of the ${['north', 'south', 'east', 'west', 'harbour', 'station', 'airport'][i]} store`,
      body: `The store opens at ${8 + (i % 3)} am and closes at ${5 + i} pm. ${'Parking is free. '.repeat(i)}`,
    }));
    expect((await importArticles(t, all)).body).toEqual({ created: 7, updated: 0 });
    const q = encodeURIComponent('store opening hours');
    const whole = (await list(t, `?q=${q}&limit=100`)).body;
    expect(whole.items).toHaveLength(7);
    expect(whole.nextCursor).toBeNull();
    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(t, `?q=${q}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      paged.push(...r.body.items.map((i: { id: string }) => i.id));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(paged).toEqual(whole.items.map((i: { id: string }) => i.id));

    const page1 = (await list(t, `?q=${q}&limit=3`)).body.nextCursor as string;
    const c = encodeURIComponent(page1);
    expectProblem(await list(t, `?q=${encodeURIComponent('parking')}&limit=3&cursor=${c}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(t, `?limit=3&cursor=${c}`), 400, 'INVALID_CURSOR');
    expectProblem(await list(t, `?q=${q}&status=draft&limit=3&cursor=${c}`), 400, 'INVALID_CURSOR');
    const plain = (await list(t, '?limit=3')).body.nextCursor as string;
    expectProblem(await list(t, `?q=${q}&limit=3&cursor=${encodeURIComponent(plain)}`), 400, 'INVALID_CURSOR');
    const other = await newTenant();
    expectProblem(await list(other, `?q=${q}&limit=3&cursor=${c}`), 400, 'INVALID_CURSOR');
  });

  it('refuses a q over 200 characters, an empty q and unknown parameters', async () => {
    const t = await newTenant();
    expectProblem(await list(t, `?q=${'a'.repeat(201)}`), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?q='), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?status=archived'), 400, 'VALIDATION_ERROR');
    expectProblem(await list(t, '?sort=title'), 400, 'VALIDATION_ERROR');
    expect((await list(t, `?q=${'a'.repeat(200)}`)).status).toBe(200);
  });
});

describe('POST /articles/import', () => {
  it('adds new articles and replaces those whose url matches', async () => {
    const t = await newTenant();
    const first = await importArticles(t, demoArticles);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ created: demoArticles.length, updated: 0 });
    const before = (await list(t, '?limit=100')).body.items as Array<{ id: string; title: string; url: string }>;
    const rewardsId = before.find((a) => a.url.endsWith('/rewards'))!.id;

    const second = await importArticles(t, [
      { title: 'Rewards programme', body: 'Points never expire.', url: demoArticles[4]!.url },
      {
        title: 'Price match',
        body: 'We match the price of any shop that sells the same item new.',
        url: 'https://help.demo-shop.example/price-match',
      },
      gifts,
    ]);
    expect(second.body).toEqual({ created: 2, updated: 1 });
    const after = (await list(t, '?limit=100')).body.items as Array<{ id: string }>;
    expect(after).toHaveLength(demoArticles.length + 2);
    const replaced = (await get(t, rewardsId)).body;
    expect(replaced).toMatchObject({
      id: rewardsId,
      title: 'Rewards programme',
      body: 'Points never expire.',
      questions: [],
      tags: [],
    });
    expect((await tenantItem(t)).articleCount).toBe(demoArticles.length + 2);
    expect((await tenantItem(t)).articlesImportId).toBeUndefined();

    const audit = (await request('GET', admin('/audit?category=knowledge'), { token: t.ownerToken })).body.items;
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({
      action: 'articles.imported',
      changes: { updated: { from: null, to: [rewardsId] } },
    });
    expect(audit[0].changes.created.to).toHaveLength(2);
    // The next message uses the replaced article.
    const r = await send(t, 'do my rewards programme points expire');
    expect(r.body.message.content).toContain('Points never expire.');
  });

  it('is all or nothing: one invalid article is a 400 naming it by index, and nothing is written', async () => {
    const t = await newTenant();
    await importArticles(t, [rewards]);
    const version = (await tenantItem(t)).articlesVersion;
    const batch = demoArticles.map((a) => ({ ...a }));
    (batch[3] as Record<string, unknown>).title = '';
    const r = await importArticles(t, batch);
    expectProblem(r, 400, 'VALIDATION_ERROR');
    expect(r.body.errors).toEqual([{ path: 'articles.3.title', message: 'must not be empty' }]);

    const md = await importArticles(t, [...demoArticles, { title: 'Deep', body: `${'>'.repeat(19_990)} x` }]);
    expectProblem(md, 400, 'VALIDATION_ERROR');
    expect(md.body.errors[0].path).toBe(`articles.${demoArticles.length}.body`);

    const dup = await importArticles(t, [
      gifts,
      { ...rewards, title: 'Other' },
      { ...demoArticles[0]! },
      { ...rewards },
    ]);
    expectProblem(dup, 400, 'VALIDATION_ERROR');
    expect(dup.body.errors).toEqual([{ path: 'articles.3.url', message: 'is the url of articles.1 too' }]);

    expectProblem(await importArticles(t, []), 400, 'VALIDATION_ERROR');
    expectProblem(
      await importArticles(
        t,
        Array.from({ length: 101 }, (_, i) => ({ title: `a${i}`, body: 'x' })),
      ),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('POST', admin('/articles/import'), { token: t.ownerToken, body: { articles: [gifts], extra: 1 } }),
      400,
      'VALIDATION_ERROR',
    );

    expect((await list(t, '?limit=100')).body.items).toHaveLength(1);
    expect((await tenantItem(t)).articlesVersion).toBe(version);
  });

  it('imports 100 articles in one request, and stops at 1,000 articles per tenant with 409 and nothing written', async () => {
    const t = await newTenant();
    const batch = (n: number) =>
      Array.from({ length: 100 }, (_, i) => ({
        title: `Article ${n}-${i}`,
        body: `Answer number ${i} of batch ${n}.`,
        url: `https://help.shop.example/${n}/${i}`,
      }));
    for (let n = 0; n < 9; n++) expect((await importArticles(t, batch(n))).body).toEqual({ created: 100, updated: 0 });
    // 99 more fit, with one replaced by URL.
    const last = [...batch(9).slice(0, 99), { ...batch(0)[0]!, body: 'Replaced.' }];
    expect((await importArticles(t, last)).body).toEqual({ created: 99, updated: 1 });
    expect((await tenantItem(t)).articleCount).toBe(999);
    expectProblem(
      await importArticles(t, [
        { title: 'x', body: 'y' },
        { title: 'z', body: 'w' },
      ]),
      409,
      'CONFLICT',
    );
    expect(
      (await request('POST', admin('/articles'), { token: t.ownerToken, body: { title: 'x', body: 'y' } })).status,
    ).toBe(201);
    expectProblem(
      await request('POST', admin('/articles'), { token: t.ownerToken, body: { title: 'x', body: 'y' } }),
      409,
      'CONFLICT',
    );
    // Replacing by URL adds nothing, so it still works at the limit.
    expect((await importArticles(t, [{ ...batch(1)[5]!, body: 'New text.' }])).body).toEqual({
      created: 0,
      updated: 1,
    });
    expect((await tenantItem(t)).articleCount).toBe(1000);
  }, 120_000);

  it('rolls back what it wrote when a later transaction fails', async () => {
    const t = await newTenant();
    const kept = await create(t, { ...rewards, url: 'https://help.shop.example/kept' });
    const versionBefore = (await tenantItem(t)).articlesVersion;
    // A URL guard left without its article (as if written by hand): the import finds no article to
    // replace, so it creates one, and the guard's condition fails in the last transaction.
    const blocked = 'https://help.shop.example/blocked';
    const guardSk = (await import('#shared/data/keys.ts')).keys.articleUrl(t.tenantId, blocked).sk;
    await ddb.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: `TENANT#${t.tenantId}`, sk: guardSk, type: 'articleUrl', articleId: 'art_GONE', url: blocked },
      }),
    );
    const batch = [
      { ...rewards, url: 'https://help.shop.example/kept', title: 'Changed by the import' },
      ...Array.from({ length: 60 }, (_, i) => ({
        title: `New ${i}`,
        body: `Text ${i}.`,
        url: `https://help.shop.example/new/${i}`,
      })),
      { title: 'Blocked', body: 'Never stored.', url: blocked },
    ];
    expectProblem(await importArticles(t, batch), 409, 'CONFLICT');
    const items = (await list(t, '?limit=100')).body.items;
    expect(items.map((i: { id: string }) => i.id)).toEqual([kept.id]);
    expect((await get(t, kept.id)).body).toEqual({ ...kept, indexing: expect.any(Boolean) });
    const tenant = await tenantItem(t);
    expect(tenant.articlesImportId).toBeUndefined();
    expect(tenant.articleCount).toBe(1);
    expect(tenant.articlesVersion).toBeGreaterThan(versionBefore);
    expect((await list(t, '?q=new')).body.items).toEqual([]);
    // The URLs it had taken are free again.
    expect((await importArticles(t, batch.slice(0, 10))).body).toEqual({ created: 9, updated: 1 });
  });

  it('an import that died holding the lock never answers, and the next write rolls it back', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    const first = await send(t, POINTS_QUESTION);
    expect(first.body.metadata.sources[0].articleId).toBe(a.id);
    // What a dead import leaves: its lock, and the items it wrote carrying its id and what they replaced.
    const importId = 'imp_DEAD';
    const pk = `TENANT#${t.tenantId}`;
    const stored = (await ddb.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: `ARTICLE#${a.id}` } }))).Item!;
    const form = (await ddb.send(new GetCommand({ TableName: TABLE, Key: { pk: `${pk}#KB`, sk: a.id } }))).Item!;
    const { pk: _p, sk: _s, type: _t, ...prevForm } = form;
    const { pk: _p2, sk: _s2, type: _t2, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, ...prevArticle } = stored;
    await ddb.send(
      new PutCommand({ TableName: TABLE, Item: { ...stored, title: 'Half imported', importId, prev: prevArticle } }),
    );
    await ddb.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...form, title: 'Half imported', passages: ['Points are gone forever.'], importId, prev: prevForm },
      }),
    );
    await ddb.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk, sk: 'TENANT' },
        UpdateExpression: 'SET articlesImportId = :id, articlesImportAt = :at ADD articlesVersion :one',
        ExpressionAttributeValues: {
          ':id': importId,
          ':at': new Date(Date.now() - 10 * 60_000).toISOString(),
          ':one': 1,
        },
      }),
    );
    // The chat builds its index afresh (the version moved) and sees the article as it was.
    const during = await send(t, POINTS_QUESTION);
    expect(during.body.message.content).toContain('12 months');
    expect(during.body.message.content).not.toContain('gone forever');
    // The next write finds the lock old, rolls the import back, and goes on.
    expect((await request('POST', admin('/articles'), { token: t.ownerToken, body: gifts })).status).toBe(201);
    expect((await get(t, a.id)).body.title).toBe(rewards.title);
    expect((await tenantItem(t)).articlesImportId).toBeUndefined();
    // A lock that is not old answers 409 to writes.
    await ddb.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk, sk: 'TENANT' },
        UpdateExpression: 'SET articlesImportId = :id, articlesImportAt = :at',
        ExpressionAttributeValues: { ':id': 'imp_LIVE', ':at': new Date().toISOString() },
      }),
    );
    expectProblem(
      await request('POST', admin('/articles'), { token: t.ownerToken, body: { title: 'x', body: 'y' } }),
      409,
      'CONFLICT',
    );
    expectProblem(await importArticles(t, [{ title: 'x', body: 'y' }]), 409, 'CONFLICT');
    expectProblem(await request('DELETE', admin(`/articles/${a.id}`), { token: t.ownerToken }), 409, 'CONFLICT');
  });
});

describe('answers from articles', () => {
  it('a published article answers with its passage, title and url; the widget can open it', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    const g = await create(t, gifts);
    const r = await send(t, POINTS_QUESTION);
    expect(r.status).toBe(200);
    const m = r.body.metadata;
    expect(m.intentDetected).toBe('knowledge_base');
    expect(m.confidence).toBeGreaterThanOrEqual(0.34);
    expect(m.confidence).toBeLessThanOrEqual(1);
    expect(m.entitiesExtracted).toEqual({});
    expect(m.sources[0]).toEqual({ articleId: a.id, title: rewards.title, url: rewards.url });
    expect(m.sources.length).toBeLessThanOrEqual(3);
    expect(r.body.message.content).toBe(
      'Every dollar you spend earns one point once your order is delivered. 100 points are worth a $5 voucher.\n' +
        'Points expire 12 months after the order that earned them.\n\nRewards: loyalty points: https://help.shop.example/rewards',
    );
    // An article without a url ends with its title.
    const gift = await send(t, GIFT_QUESTION);
    expect(gift.body.metadata.intentDetected).toBe('knowledge_base');
    expect(gift.body.metadata.sources[0]).toEqual({ articleId: g.id, title: gifts.title, url: null });
    expect(gift.body.message.content.endsWith(`\n\n${gifts.title}`)).toBe(true);

    const open = await request('GET', chat(`/articles/${a.id}`), { widgetKey: t.widgetKey });
    expect(open.status).toBe(200);
    expect(open.body).toEqual({
      article: {
        id: a.id,
        title: rewards.title,
        body: rewards.body,
        url: rewards.url,
        updatedAt: a.updatedAt,
        // The body as plain text, one block a paragraph, for clients without a Markdown parser.
        blocks: [
          'Every dollar you spend earns one point once your order is delivered. 100 points are worth a $5 voucher.',
          'Points expire 12 months after the order that earned them.',
        ],
      },
    });
    // The admin's conversation view keeps the sources.
    const detail = await request('GET', admin(`/conversations/${r.body.conversationId}`), { token: t.ownerToken });
    expect(detail.body.messages[1].metadata.sources).toEqual(m.sources);
    // A message nothing covers is the fallback, with no sources.
    const none = await send(t, 'what is the capital of France');
    expect(none.body.metadata).toMatchObject({ intentDetected: 'fallback', sources: [] });
  });

  it('a draft never answers nor opens; publishing it answers the next message', async () => {
    const t = await newTenant();
    const a = await create(t, { ...rewards, status: 'draft' });
    expect((await send(t, POINTS_QUESTION)).body.metadata.intentDetected).toBe('fallback');
    expectProblem(await request('GET', chat(`/articles/${a.id}`), { widgetKey: t.widgetKey }), 404, 'NOT_FOUND');
    await request('PUT', admin(`/articles/${a.id}`), { token: t.ownerToken, body: rewards });
    expect((await send(t, POINTS_QUESTION)).body.metadata.intentDetected).toBe('knowledge_base');
    await request('PUT', admin(`/articles/${a.id}`), { token: t.ownerToken, body: { ...rewards, status: 'draft' } });
    expect((await send(t, POINTS_QUESTION)).body.metadata.intentDetected).toBe('fallback');
  });

  it('the next message uses an edited article, and never a deleted one', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    const conv = (await send(t, POINTS_QUESTION)).body.conversationId;
    await request('PUT', admin(`/articles/${a.id}`), {
      token: t.ownerToken,
      body: { ...rewards, body: 'Reward points expire after 24 months, counted from the day of delivery.' },
    });
    const edited = await send(t, POINTS_QUESTION, conv);
    expect(edited.body.message.content).toContain('24 months');
    await request('DELETE', admin(`/articles/${a.id}`), { token: t.ownerToken });
    const gone = await send(t, POINTS_QUESTION, conv);
    expect(gone.body.metadata).toMatchObject({ intentDetected: 'fallback', sources: [] });
    expectProblem(await request('GET', chat(`/articles/${a.id}`), { widgetKey: t.widgetKey }), 404, 'NOT_FOUND');
  });

  it('counts one hit per answer under concurrency, and /stats counts the answers and the top articles', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    const g = await create(t, gifts);
    const replies = await Promise.all(Array.from({ length: 10 }, () => send(t, POINTS_QUESTION)));
    for (const r of replies) expect(r.body.metadata.intentDetected).toBe('knowledge_base');
    expect((await send(t, GIFT_QUESTION)).body.metadata.sources[0].articleId).toBe(g.id);
    expect((await send(t, 'what is the capital of France')).body.metadata.intentDetected).toBe('fallback');

    expect((await get(t, a.id)).body.hits).toBe(10);
    expect((await get(t, g.id)).body.hits).toBe(1);
    const listed = (await list(t)).body.items;
    expect(Object.fromEntries(listed.map((i: { id: string; hits: number }) => [i.id, i.hits]))).toEqual({
      [a.id]: 10,
      [g.id]: 1,
    });

    const stats = (await request('GET', admin('/stats'), { token: t.ownerToken })).body;
    expect(stats.kpis).toMatchObject({ messages: 12, knowledgeAnswers: 11, fallbacks: 1 });
    expect(stats.kpis.fallbackRate).toBeCloseTo(1 / 12, 10);
    expect(stats.topArticles).toEqual([
      { articleId: a.id, title: rewards.title, count: 10 },
      { articleId: g.id, title: gifts.title, count: 1 },
    ]);
    expect(stats.topIntents).toEqual([]);
  });

  it('POST /nlu/parse returns the reply and sources the next message gets, and counts nothing', async () => {
    const t = await newTenant();
    await create(t, rewards);
    // Both read the article's sentence vectors: compared once the indexer has stored them.
    await untilIndexed(t);
    const viewer = await memberToken(t, 'viewer');
    const p = await request('POST', admin('/nlu/parse'), { token: viewer.token, body: { message: POINTS_QUESTION } });
    expect(p.status).toBe(200);
    const c = await send(t, POINTS_QUESTION);
    expect(p.body).toEqual({
      intentDetected: 'knowledge_base',
      confidence: c.body.metadata.confidence,
      entitiesExtracted: {},
      intentRanking: c.body.metadata.intentRanking,
      reply: c.body.message.content,
      sources: c.body.metadata.sources,
      candidates: expect.any(Object),
    });
    const fallback = await request('POST', admin('/nlu/parse'), {
      token: viewer.token,
      body: { message: 'what is the capital of France' },
    });
    expect(fallback.body).toMatchObject({
      intentDetected: 'fallback',
      sources: [],
      reply: expect.stringContaining('rephrase'),
    });
    const intent = await request('POST', admin('/nlu/parse'), {
      token: viewer.token,
      body: { message: 'hello there' },
    });
    expect(intent.body).toMatchObject({
      intentDetected: 'greeting',
      sources: [],
      reply: 'Hello! How can I help you today?',
    });
    const stats = (await request('GET', admin('/stats'), { token: t.ownerToken })).body;
    expect(stats.kpis.knowledgeAnswers).toBe(1);
  });

  it('POST /nlu/parse ranks every intent and the matching articles as the assistant does (what "Should have been…" offers)', async () => {
    const t = await newTenant();
    const a = await create(t, rewards);
    await create(t, gifts);
    // The team's refund intent, written from the template (starter content has none).
    const template = (await request('GET', admin('/intent-templates'), { token: t.ownerToken })).body.items.find(
      (x: { key: string }) => x.key === 'refunds',
    );
    expect(
      (
        await request('POST', admin('/intents'), {
          token: t.ownerToken,
          body: {
            name: template.name,
            trainingPhrases: template.trainingPhrases,
            response: 'Refunds reach your card within a week of the return arriving.',
          },
        })
      ).status,
    ).toBe(201);
    const intents = (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items as Array<{
      id: string;
      name: string;
    }>;
    const parse = async (message: string) =>
      (await request('POST', admin('/nlu/parse'), { token: t.ownerToken, body: { message } })).body;

    const refund = await parse('can I get my money back for the broken kettle');
    // Every intent once, best first, the assistant's own top three leading in its order and with its confidences.
    expect(refund.candidates.intents.map((i: { name: string }) => i.name).sort()).toEqual(
      intents.map((i) => i.name).sort(),
    );
    expect(
      refund.candidates.intents
        .slice(0, 3)
        .map((i: { name: string; confidence: number }) => ({ intent: i.name, confidence: i.confidence })),
    ).toEqual(refund.intentRanking);
    expect(refund.candidates.intents[0]).toEqual({
      id: intents.find((i) => i.name === 'refund')!.id,
      name: 'refund',
      confidence: refund.confidence,
    });
    const confidences = refund.candidates.intents.map((i: { confidence: number }) => i.confidence);
    expect(confidences).toEqual([...confidences].sort((x: number, y: number) => y - x));
    // Not the alphabetical order: complaint is not first for a refund question.
    expect(refund.candidates.intents[0].name).not.toBe('complaint');

    const points = await parse(POINTS_QUESTION);
    expect(points.candidates.articles[0]).toEqual({
      articleId: a.id,
      title: rewards.title,
      confidence: points.confidence,
    });
    expect(points.candidates.intents.length).toBe(intents.length);
  });

  it('knowledge.enabled false turns the search off, and knowledge.threshold is honoured', async () => {
    const t = await newTenant();
    await create(t, rewards);
    // Confidences move once the article's sentence vectors exist: the thresholds are read after that.
    await untilIndexed(t);
    const on = await send(t, POINTS_QUESTION);
    const confidence = on.body.metadata.confidence as number;
    expect(on.body.metadata.intentDetected).toBe('knowledge_base');

    expect((await putSettings(t, { knowledge: { enabled: false } })).status).toBe(200);
    expect((await send(t, POINTS_QUESTION)).body.metadata).toMatchObject({ intentDetected: 'fallback', sources: [] });
    await putSettings(t, { knowledge: { enabled: true, threshold: Math.min(1, confidence + 0.001) } });
    expect((await send(t, POINTS_QUESTION)).body.metadata.intentDetected).toBe('fallback');
    await putSettings(t, { knowledge: { threshold: confidence } });
    expect((await send(t, POINTS_QUESTION)).body.metadata.intentDetected).toBe('knowledge_base');
    // A low threshold answers a loosely related message that the default refuses (the article reads
    // about 0.3 for it once indexed; "how many months until my membership ends" now reads 0.8).
    const loose = 'does my balance ever run out';
    await putSettings(t, { knowledge: null });
    expect((await send(t, loose)).body.metadata.intentDetected).toBe('fallback');
    await putSettings(t, { knowledge: { threshold: 0 } });
    expect((await send(t, loose)).body.metadata.intentDetected).toBe('knowledge_base');

    for (const bad of [{ enabled: 'no' }, { threshold: 1.5 }, { threshold: -0.1 }, { threshold: '0.5' }, 'on']) {
      const r = await putSettings(t, { knowledge: bad });
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors[0].path).toMatch(/^config\.knowledge/);
    }
  });

  it('an intent answers what its phrases say, even beside an article that shares its words', async () => {
    const t = await newTenant();
    await create(t, { title: 'Say hello to our team', body: 'Hello there! Our team says hello back.' });
    expect((await send(t, 'hello there')).body.metadata.intentDetected).toBe('greeting');
  });

  it('an article that explains the message beats the intent that shares one word, in chat and in /nlu/parse alike', async () => {
    const t = await newTenant();
    const g = await create(t, gifts);
    // Both read the article's sentence vectors: compared once the indexer has stored them.
    await untilIndexed(t);
    const message = 'Can you gift wrap my order and add a message?';
    const parsed = await request('POST', admin('/nlu/parse'), { token: t.ownerToken, body: { message } });
    const chat = await send(t, message);
    for (const metadata of [parsed.body, chat.body.metadata]) {
      expect(metadata).toMatchObject({
        intentDetected: 'knowledge_base',
        sources: [{ articleId: g.id, title: gifts.title, url: null }],
      });
      // The starter order_status intent shares "order": ranked, but the team's article answers (starter content gives way to it).
      expect(metadata.intentRanking[0].intent).toBe('order_status');
    }
    expect(parsed.body.confidence).toBe(chat.body.metadata.confidence);
    expect(parsed.body.reply).toBe(chat.body.message.content);
  });
});
