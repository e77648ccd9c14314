import { request as httpRequest } from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  admin,
  baseUrl,
  chat,
  expectProblem,
  memberToken,
  newTenant,
  newTicket,
  request,
  send,
  type Res,
} from './client.ts';
import { member } from './live-client.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// The caps of CONTRACT section 6, written as the probes that found them missing: a tenant that
// keeps adding integrations and members, and a public widget key farmed for conversations,
// escalations and ratings.

const TABLE = 'support-assistant-test';
const ddb = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: localDatabaseCredentials(TABLE),
  }),
);
/** The per-key window counter of new conversations (shared/data/keys.ts limitWindow), for the minute `at` falls in. */
const newConversationWindow = (tenantId: string, at: Date) => ({
  pk: `TENANT#${tenantId}#LIMIT#newconv`,
  sk: `WINDOW#${new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString()}`,
});

/** A chat request sent from another loopback address (the runtime passes the socket's address as the source). */
function chatFrom(localAddress: string, widgetKey: string, path: string, body: unknown): Promise<Res> {
  const url = new URL(baseUrl() + chat(path));
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: {
          'content-type': 'application/json',
          'x-widget-key': widgetKey,
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: res.statusCode ?? 0,
            headers: new Headers(res.headers as Record<string, string>),
            body: text ? JSON.parse(text) : undefined,
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * The windows are fixed UTC minutes, so a test that fills one must stay inside it. Rather than wait
 * for the next minute to begin, the test runs; if it fails and a minute began meanwhile, it runs again
 * (with a new tenant, so nothing of the first run counts), at most three times. A failure inside one
 * minute is the test's answer.
 */
async function inOneWindow(body: () => Promise<void>) {
  const minute = () => Math.floor(Date.now() / 60_000);
  for (let run = 1; ; run++) {
    const started = minute();
    try {
      return await body();
    } catch (e) {
      if (minute() === started || run === 3) throw e;
      console.warn(`a minute began during the run (${(e as Error).message.slice(0, 120)}): running it again`);
    }
  }
}

/** Runs `n` calls, `width` at a time, returning their results in order. */
async function inBatches<T>(n: number, width: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += width)
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => call(i + j)))));
  return out;
}

const expectRetryAfter = (r: Res) => {
  expectProblem(r, 429, 'RATE_LIMITED');
  const s = Number(r.headers.get('retry-after'));
  expect(s).toBeGreaterThanOrEqual(1);
  expect(s).toBeLessThanOrEqual(60);
};

describe('what a tenant keeps is bounded', () => {
  it('takes 25 integrations, refuses the 26th with 409, and takes one again after a deletion', async () => {
    const t = await newTenant();
    const create = (i: number) =>
      request('POST', admin('/integrations'), {
        token: t.ownerToken,
        body: { type: 'webhook', name: `Hook ${i}`, config: { url: `https://hooks.example.com/${i}` } },
      });
    const made = await inBatches(25, 5, create);
    expect(made.map((r) => r.status)).toEqual(Array(25).fill(201));
    // Several at once past the cap: none gets through.
    const over = await Promise.all([26, 27, 28].map(create));
    for (const r of over) expectProblem(r, 409, 'CONFLICT');
    expect((await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items).toHaveLength(25);
    expect((await request('DELETE', admin(`/integrations/${made[0]!.body.id}`), { token: t.ownerToken })).status).toBe(
      204,
    );
    expect((await create(29)).status).toBe(201);
    expectProblem(await create(30), 409, 'CONFLICT');
  });

  it('takes members and pending invitations up to 500 in all, even when invited at once', async () => {
    const t = await newTenant();
    const invite = (i: number) =>
      request('POST', admin('/members'), { token: t.ownerToken, body: { email: `m${i}@cap.example`, role: 'viewer' } });
    // The owner is one; 489 invitations bring the tenant to 490.
    const first = await inBatches(489, 10, invite);
    expect(first.filter((r) => r.status !== 201).map((r) => r.text)).toEqual([]);
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => invite(1000 + i)));
    expect(burst.filter((r) => r.status === 201)).toHaveLength(10);
    for (const r of burst.filter((x) => x.status !== 201)) expectProblem(r, 409, 'CONFLICT');
    expect((await request('GET', admin('/members'), { token: t.ownerToken })).body.items).toHaveLength(500);
    const revoked = await request('DELETE', admin(`/members/${burst.find((r) => r.status === 201)!.body.id}`), {
      token: t.ownerToken,
    });
    expect(revoked.status).toBe(204);
    expect((await invite(2000)).status).toBe(201);
    expectProblem(await invite(2001), 409, 'CONFLICT');
  }, 240_000);
});

describe('the public widget key is not a free tap', { timeout: 120_000 }, () => {
  it('opens 60 new conversations a minute from one address, then 429 with Retry-After; another address still gets in', async () => {
    await inOneWindow(async () => {
      const t = await newTenant();
      const opened = await inBatches(60, 10, () => send(t, 'hello'));
      expect(opened.map((r) => r.status)).toEqual(Array(60).fill(200));
      const refused = await send(t, 'hello');
      expectRetryAfter(refused);
      // Messages in conversations already open are not new conversations.
      expect((await send(t, 'and another thing', opened[0]!.body.conversationId)).status).toBe(200);
      expect((await chatFrom('127.0.0.2', t.widgetKey, '/message', { message: 'hello' })).status).toBe(200);
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis.conversations).toBe(61);
    });
  });

  it('lets a tenant behind one shared address raise its per-address figure (widget.newConversationsPerMinute)', async () => {
    await inOneWindow(async () => {
      const t = await newTenant();
      const put = (n: unknown) =>
        request('PUT', admin('/settings'), {
          token: t.ownerToken,
          body: { config: { widget: { newConversationsPerMinute: n } } },
        });
      for (const bad of [0, 10_001, 1.5, '60']) expectProblem(await put(bad), 400, 'VALIDATION_ERROR');
      expect((await put(3)).status).toBe(200);
      expect((await inBatches(3, 3, () => send(t, 'hello'))).map((r) => r.status)).toEqual([200, 200, 200]);
      expectRetryAfter(await send(t, 'hello'));
      expect((await put(5)).status).toBe(200);
      expect((await send(t, 'hello')).status).toBe(200);
    });
  });

  it('opens at most 1,000 new conversations a minute per widget key from all addresses together, then 429 with Retry-After and nothing written', async () => {
    // 999 conversations of this minute are already counted: the window's counter item is set as the
    // service leaves it, rather than sending 999 requests.
    await inOneWindow(async () => {
      const t = await newTenant();
      const key = newConversationWindow(t.tenantId, new Date());
      await ddb.send(
        new PutCommand({ TableName: TABLE, Item: { ...key, n: 999, expiresAt: Math.floor(Date.now() / 1000) + 180 } }),
      );
      const counted = async () =>
        (await ddb.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item?.n;

      const thousandth = await send(t, 'hello');
      expect(thousandth.status).toBe(200);
      expect(await counted()).toBe(1000);
      const refused = await send(t, 'hello again');
      expectRetryAfter(refused);
      expect(refused.body.detail).toMatch(/1000 new conversations per widget key a minute/);
      // Another address is refused too: this window counts the key, whatever the address.
      expectRetryAfter(await chatFrom('127.0.0.3', t.widgetKey, '/message', { message: 'hello from elsewhere' }));
      // The conversation already open goes on: its messages are not new conversations.
      expect((await send(t, 'and another thing', thousandth.body.conversationId)).status).toBe(200);

      // Nothing of the refused requests was written: no conversation, no count, no window moved.
      expect(await counted()).toBe(1000);
      const list = await request('GET', admin('/conversations?limit=100'), { token: t.ownerToken });
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([thousandth.body.conversationId]);
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis).toMatchObject({ conversations: 1, messages: 2 });
    });
  });

  it('opens 30 tickets a minute by escalation from one address, then 429', async () => {
    await inOneWindow(async () => {
      const t = await newTenant();
      const convs = await inBatches(31, 10, () => send(t, 'hello'));
      const escalate = (id: string) =>
        request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId: id, reason: 'now' } });
      const done = await inBatches(30, 10, (i) => escalate(convs[i]!.body.conversationId));
      expect(done.map((r) => r.status)).toEqual(Array(30).fill(200));
      expectRetryAfter(await escalate(convs[30]!.body.conversationId));
      // Asking again for a ticket that is already open opens nothing, so it is still answered.
      expect((await escalate(convs[0]!.body.conversationId)).body.ticketId).toBe(done[0]!.body.ticketId);
      const tickets = await request('GET', admin('/tickets?limit=100'), { token: t.ownerToken });
      expect(tickets.body.items).toHaveLength(30);
    });
  });

  it('rates only a conversation that has a ticket, 5 times a minute, and an unchanged rating emits nothing', async () => {
    await inOneWindow(async () => {
      const t = await newTenant();
      const rate = (id: string, body: unknown) =>
        request('POST', chat(`/conversations/${id}/rating`), { widgetKey: t.widgetKey, body });
      const plain = await send(t, 'hello');
      expectProblem(await rate(plain.body.conversationId, { score: 1 }), 409, 'CONFLICT');

      const agent = await memberToken(t, 'agent');
      const m = await member(agent.token);
      const { conversationId } = await newTicket(t);
      const statuses = [];
      for (const score of [1, 2, 3, 4, 5]) statuses.push((await rate(conversationId, { score })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      // The same rating again: 200 with the rating as it stands, nothing written, nothing emitted.
      const same = await rate(conversationId, { score: 5 });
      expect(same.status).toBe(200);
      expect(same.body.rating.score).toBe(5);
      expectRetryAfter(await rate(conversationId, { score: 2 }));
      await eventually(() =>
        expect(m.frames.filter((f) => f.type === 'conversation.rated').length, 'rating events').toBeGreaterThanOrEqual(
          5,
        ),
      );
      // An agent's message after them: once the member socket has it, any later rating event would be there too.
      const after = await request('POST', admin(`/conversations/${conversationId}/messages`), {
        token: t.ownerToken,
        body: { content: 'Thanks for rating us' },
      });
      await eventually(() =>
        expect(m.frames.some((f) => f.type === 'message.created' && f.data.message.id === after.body.message.id)).toBe(
          true,
        ),
      );
      expect(m.frames.filter((f) => f.type === 'conversation.rated').map((f) => f.data.rating.score)).toEqual([
        1, 2, 3, 4, 5,
      ]);
      m.ws.close();
      const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
      expect(stats.body.kpis).toMatchObject({ ratings: 1, csat: 5 });
    });
  });
});
