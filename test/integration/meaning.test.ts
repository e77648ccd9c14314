import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { admin, newTenant, request, send, type TestTenant } from './client.ts';

// Meaning (docs/API.md, Sentence vectors): the event pipeline embeds a tenant's content after each
// write (stream -> dispatcher -> index queue -> indexer), the admin lists show what still waits,
// and the chat answers from words at once and from meaning once the vectors exist.

const TABLE = 'support-assistant-test';
const raw = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const ddb = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

/** How many vectors the tenant has stored (the indexer's items). */
async function vectorCount(t: TestTenant): Promise<number> {
  const r = await ddb.send(new QueryCommand({
    TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': `TENANT#${t.tenantId}#VEC` }, Select: 'COUNT',
  }));
  return r.Count ?? 0;
}

/** Polls until `done` holds (the pipeline runs in the background), within `ms`. */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const intents = async (t: TestTenant) => (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items as Array<{ id: string; name: string; indexing: boolean }>;
const articles = async (t: TestTenant) => (await request('GET', admin('/articles?limit=100'), { token: t.ownerToken })).body.items as Array<{ id: string; indexing: boolean }>;
const allIndexed = (xs: Array<{ indexing: boolean }>) => xs.length > 0 && xs.every((x) => !x.indexing);

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
  it('a new tenant\'s starter intents get vectors; a new intent shows as indexing until its own exist', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    const ready = await until('the starter intents', () => intents(t), allIndexed);
    expect(ready.length).toBeGreaterThan(0);
    // The starter content's vectors are stored once for every tenant: none in the tenant's own partition.
    expect(await vectorCount(t)).toBe(0);

    const created = await request('POST', admin('/intents'), {
      token: t.ownerToken,
      body: { name: 'bike_sales', trainingPhrases: ['do you sell bikes', 'can I buy a bicycle'], response: 'We do!' },
    });
    expect(created.status).toBe(201);
    expect(created.body.indexing).toBe(true);
    const got = await until('the new intent', async () => (await request('GET', admin(`/intents/${created.body.id}`), { token: t.ownerToken })).body,
      (i: { indexing: boolean }) => !i.indexing);
    expect(got).toMatchObject({ name: 'bike_sales', indexing: false });
    // Its phrases and its name ("bike sales").
    expect(await vectorCount(t)).toBe(3);
  });

  it('an import answers from its words at once, is indexed in the background, and a deleted article\'s vectors go', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    const before = await until('the starter intents', () => intents(t), allIndexed);
    expect(before.length).toBeGreaterThan(0);
    const base = await vectorCount(t);

    const imported = await request('POST', admin('/articles/import'), { token: t.ownerToken, body: { articles: [BIKES, RETURNS] } });
    expect(imported.status).toBe(200);
    // At once, before any vector exists: answered from the words.
    const lexical = await send(t, 'which bikes do you sell?');
    expect(lexical.status).toBe(200);
    expect(lexical.body.metadata.intentDetected).toBe('knowledge_base');

    const listed = await until('the imported articles', () => articles(t), allIndexed);
    expect(listed).toHaveLength(2);
    const withArticles = await vectorCount(t);
    expect(withArticles).toBeGreaterThan(base);
    // Still answered once indexed.
    expect((await send(t, 'which bikes do you sell?')).body.metadata.intentDetected).toBe('knowledge_base');

    const bikes = listed.find((a) => a.id)!;
    const r = await request('DELETE', admin(`/articles/${bikes.id}`), { token: t.ownerToken });
    expect(r.status).toBe(204);
    await until('the deleted article\'s vectors to go', () => vectorCount(t), (n) => n < withArticles);
  });

  it('the unanswered view groups messages by meaning once the pipeline has embedded them', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    // Only a greeting left: the questions below fall back.
    for (const i of (await intents(t)).filter((x) => x.name !== 'greeting')) await request('DELETE', admin(`/intents/${i.id}`), { token: t.ownerToken });
    await until('the greeting', () => intents(t), allIndexed);
    const asks = ['do you sell bikes', 'are bicycles for sale here', 'where is the nearest store in leeds'];
    for (const m of asks) expect((await send(t, m)).body.metadata.intentDetected).toBe('fallback');
    type Group = { count: number; examples: Array<{ message: string }> };
    const groups = await until('the unanswered messages grouped by meaning',
      async () => (await request('GET', admin('/nlu/unanswered'), { token: t.ownerToken })).body.groups as Group[],
      (gs) => gs.some((g) => g.count === 2));
    const together = groups.find((g) => g.count === 2)!;
    expect(together.examples.map((e) => e.message).sort()).toEqual(['are bicycles for sale here', 'do you sell bikes']);
    expect(groups.filter((g) => g.count === 1).flatMap((g) => g.examples.map((e) => e.message))).toEqual(['where is the nearest store in leeds']);
  });
});
