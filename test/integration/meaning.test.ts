import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { admin, chat, newTenant, request, send, type TestTenant } from './client.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Meaning (docs/API.md, Sentence vectors): the event pipeline embeds a tenant's content after each
// write (stream -> dispatcher -> index queue -> indexer), the admin lists show what still waits,
// and the chat answers from words at once and from meaning once the vectors exist.

const TABLE = 'support-assistant-test';
const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: localDatabaseCredentials(TABLE),
});
const ddb = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

/** How many vectors the tenant has stored (the indexer's items). */
async function vectorCount(t: TestTenant): Promise<number> {
  const r = await ddb.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': `TENANT#${t.tenantId}#VEC` },
      Select: 'COUNT',
    }),
  );
  return r.Count ?? 0;
}

/** The tenant item's vector versions, and the intents and articles the indexer's state holds as embedded. */
async function versions(t: TestTenant) {
  const get = async (sk: string) =>
    (
      await ddb.send(
        new GetCommand({ TableName: TABLE, Key: { pk: `TENANT#${t.tenantId}`, sk }, ConsistentRead: true }),
      )
    ).Item;
  const [tenant, state] = await Promise.all([get('TENANT'), get('VECSTATE')]);
  return {
    chat: (tenant?.vectorsVersion as number | undefined) ?? 0,
    unanswered: (tenant?.unansweredVectorsVersion as number | undefined) ?? 0,
    owners: Object.keys((state?.owners as Record<string, string> | undefined) ?? {}).length,
  };
}

const intents = async (t: TestTenant) =>
  (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items as Array<{
    id: string;
    name: string;
    indexing: boolean;
  }>;
const articles = async (t: TestTenant) =>
  (await request('GET', admin('/articles?limit=100'), { token: t.ownerToken })).body.items as Array<{
    id: string;
    indexing: boolean;
  }>;
/** `xs` once there are some and none is still indexing; throws otherwise (for `eventually`). */
const allIndexed = <T extends { indexing: boolean }>(xs: T[]) => {
  expect(xs.length).toBeGreaterThan(0);
  expect(xs.filter((x) => x.indexing)).toEqual([]);
  return xs;
};
/** The pipeline runs in the background: generous for the encoder on a loaded machine. */
const PIPELINE = { timeout: 60_000 };

const BIKES = {
  title: 'Bicycles and e-bikes',
  body: 'We sell city bikes, mountain bikes and electric bicycles in every store. Each bike comes with a free first service after a month.',
  questions: ['Which bikes do you sell?'],
};
const RETURNS = {
  title: 'Returning an order',
  body: 'You can send anything back within 30 days of delivery. Print the prepaid label from your account and drop the parcel at any post office.',
};

describe('sentence vectors written by the pipeline', () => {
  it("a new tenant's starter intents get vectors; a new intent shows as indexing until its own exist", {
    timeout: 120_000,
  }, async () => {
    const t = await newTenant();
    const ready = await eventually(async () => allIndexed(await intents(t)), PIPELINE);
    expect(ready.length).toBeGreaterThan(0);
    // The starter content's vectors are stored once for every tenant: none in the tenant's own partition.
    expect(await vectorCount(t)).toBe(0);

    const created = await request('POST', admin('/intents'), {
      token: t.ownerToken,
      body: { name: 'bike_sales', trainingPhrases: ['do you sell bikes', 'can I buy a bicycle'], response: 'We do!' },
    });
    expect(created.status).toBe(201);
    expect(created.body.indexing).toBe(true);
    const got = await eventually(async () => {
      const i = (await request('GET', admin(`/intents/${created.body.id}`), { token: t.ownerToken })).body;
      expect(i.indexing, 'the new intent still indexing').toBe(false);
      return i;
    }, PIPELINE);
    expect(got).toMatchObject({ name: 'bike_sales', indexing: false });
    // Its phrases and its name ("bike sales").
    expect(await vectorCount(t)).toBe(3);
  });

  it("an import answers from its words at once, is indexed in the background, and a deleted article's vectors go", {
    timeout: 120_000,
  }, async () => {
    const t = await newTenant();
    const before = await eventually(async () => allIndexed(await intents(t)), PIPELINE);
    expect(before.length).toBeGreaterThan(0);
    const base = await vectorCount(t);

    const imported = await request('POST', admin('/articles/import'), {
      token: t.ownerToken,
      body: { articles: [BIKES, RETURNS] },
    });
    expect(imported.status).toBe(200);
    // At once, before any vector exists: answered from the words.
    const lexical = await send(t, 'which bikes do you sell?');
    expect(lexical.status).toBe(200);
    expect(lexical.body.metadata.intentDetected).toBe('knowledge_base');

    const listed = await eventually(async () => allIndexed(await articles(t)), PIPELINE);
    expect(listed).toHaveLength(2);
    const withArticles = await vectorCount(t);
    expect(withArticles).toBeGreaterThan(base);
    // Still answered once indexed.
    expect((await send(t, 'which bikes do you sell?')).body.metadata.intentDetected).toBe('knowledge_base');

    const bikes = listed.find((a) => a.id)!;
    const r = await request('DELETE', admin(`/articles/${bikes.id}`), { token: t.ownerToken });
    expect(r.status).toBe(204);
    await eventually(
      async () => expect(await vectorCount(t), "the deleted article's vectors").toBeLessThan(withArticles),
      PIPELINE,
    );
  });

  it('the unanswered view groups messages by meaning once the pipeline has embedded them', {
    timeout: 120_000,
  }, async () => {
    const t = await newTenant();
    // Only a greeting left: the questions below fall back.
    for (const i of (await intents(t)).filter((x) => x.name !== 'greeting'))
      await request('DELETE', admin(`/intents/${i.id}`), { token: t.ownerToken });
    await eventually(async () => allIndexed(await intents(t)), PIPELINE);
    const asks = ['do you sell bikes', 'are bicycles for sale here', 'where is the nearest store in leeds'];
    for (const m of asks) expect((await send(t, m)).body.metadata.intentDetected).toBe('fallback');
    type Group = { count: number; examples: Array<{ message: string }> };
    const groups = await eventually(async () => {
      const gs = (await request('GET', admin('/nlu/unanswered'), { token: t.ownerToken })).body.groups as Group[];
      expect(
        gs.map((g) => g.count),
        'the unanswered messages grouped by meaning',
      ).toContain(2);
      return gs;
    }, PIPELINE);
    const together = groups.find((g) => g.count === 2)!;
    expect(together.examples.map((e) => e.message).sort()).toEqual(['are bicycles for sale here', 'do you sell bikes']);
    expect(groups.filter((g) => g.count === 1).flatMap((g) => g.examples.map((e) => e.message))).toEqual([
      'where is the nearest store in leeds',
    ]);
  });

  it('a message the chat did not answer is stored with the vector it read: the unanswered view groups it with no indexing pass, the chat models keep their vectors; a none example taught from one moves them', {
    timeout: 120_000,
  }, async () => {
    const t = await newTenant();
    for (const i of (await intents(t)).filter((x) => x.name !== 'greeting'))
      await request('DELETE', admin(`/intents/${i.id}`), { token: t.ownerToken });
    // Settled: the indexer's state holds the greeting only (a pass that removes the others moves vectorsVersion).
    const before = await eventually(async () => {
      const v = await versions(t);
      expect(v.owners, 'owners of vectors besides the greeting').toBe(1);
      return v;
    }, PIPELINE);
    expect(before.chat).toBeGreaterThan(0);
    const stored = await vectorCount(t);
    for (const m of ['do you sell bikes', 'are bicycles for sale here'])
      expect((await send(t, m)).body.metadata.intentDetected).toBe('fallback');
    // Written with the answers, not later by the indexer (whose pass takes a stream read and a model call).
    expect(await vectorCount(t), 'vectors stored with the answers').toBe(stored + 2);
    type Group = { count: number; examples: Array<{ message: string; conversationId: string; messageId: string }> };
    const groups = (await request('GET', admin('/nlu/unanswered'), { token: t.ownerToken })).body.groups as Group[];
    expect(
      groups.map((g) => g.count),
      'the unanswered messages grouped by meaning',
    ).toContain(2);
    const after = await versions(t);
    // The chat keeps its model and knowledge index: vectorsVersion did not move.
    expect(after.chat).toBe(before.chat);

    // Taught as `none`, a message already embedded: the chat's model must read its vector, so vectorsVersion moves.
    const e = groups[0]!.examples[0]!;
    const taught = await request('POST', admin('/nlu/examples'), {
      token: t.ownerToken,
      body: { message: e.message, target: { none: true }, conversationId: e.conversationId, messageId: e.messageId },
    });
    expect(taught.status).toBe(201);
    await eventually(
      async () => expect((await versions(t)).chat, 'vectorsVersion').toBeGreaterThan(before.chat),
      PIPELINE,
    );
  });

  it('erasing a customer removes the vectors of their messages', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    await eventually(async () => allIndexed(await intents(t)), PIPELINE);
    await eventually(async () => expect((await versions(t)).chat).toBeGreaterThan(0), PIPELINE);
    const stored = await vectorCount(t);
    const first = await send(t, 'do you repair vintage typewriters in Quimbleton');
    expect(await vectorCount(t), "the message's vector, stored with its answer").toBe(stored + 1);
    const contact = await request('POST', chat(`/conversations/${first.body.conversationId}/contact`), {
      widgetKey: t.widgetKey,
      body: { email: 'quimbleton@example.com' },
    });
    expect(contact.status).toBe(200);
    const erased = await request('POST', admin('/customers/erase'), {
      token: t.ownerToken,
      body: { email: 'quimbleton@example.com' },
    });
    expect(erased.body).toMatchObject({ conversations: 1 });
    await eventually(async () => expect(await vectorCount(t), 'vectors after the erasure').toBe(stored), PIPELINE);
  });
});
