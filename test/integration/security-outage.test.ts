import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// DynamoDB outages: hung (SIGSTOP) and dead (SIGKILL). Routes answer 503 UNAVAILABLE with
// Retry-After within a bounded time, nothing is half-written, and the service recovers unaided.

const TABLE = 'sec-outage';
/** Under the deployed function timeout (10 s): past it the gateway, not the service, would answer. */
const BOUND_MS = 9_500;
let rt: LocalRuntime;
let ddb: DynamoDBDocumentClient;
let tenant: { widgetKey: string; token: string; tenantId: string };

interface R {
  status: number;
  headers: Headers;
  body: any;
  ms: number;
}
async function call(
  method: string,
  path: string,
  o: { widgetKey?: string; token?: string; body?: unknown } = {},
): Promise<R> {
  const headers: Record<string, string> = {};
  if (o.widgetKey) headers['x-widget-key'] = o.widgetKey;
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const start = Date.now();
  const res = await fetch(rt.url + path, {
    method,
    headers,
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : undefined,
    ms: Date.now() - start,
  };
}

beforeAll(async () => {
  rt = await startLocalRuntime({ tableName: TABLE, indexer: false });
  ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: rt.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: localDatabaseCredentials(TABLE),
    }),
  );
  const token = await rt.idp.token({ sub: `outage-${randomUUID()}`, email: 'outage@example.com' });
  const r = await call('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Outage' } });
  expect(r.status).toBe(201);
  tenant = { widgetKey: r.body.widgetKey, token, tenantId: r.body.tenant.id };
}, 60_000);

afterAll(async () => {
  if (rt?.dynamo?.process.signalCode === null && rt.dynamo.process.exitCode === null) rt.dynamo.process.kill('SIGCONT');
  ddb?.destroy();
  await rt?.stop();
});

const expectUnavailable = (r: R, what: string) => {
  expect(r.status, what).toBe(503);
  expect(r.body.code, what).toBe('UNAVAILABLE');
  expect(r.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
  expect(Number(r.headers.get('retry-after')), what).toBeGreaterThan(0);
  expect(r.ms, `${what} took ${r.ms} ms`).toBeLessThan(BOUND_MS);
  expect(JSON.stringify(r.body), what).not.toMatch(/at .*\.ts|Error:|ECONN|dynamodb/i);
};

/** The conversation item's counters against the messages actually stored. */
async function consistent(conversationId: string) {
  const pk = `TENANT#${tenant.tenantId}#CONV#${conversationId}`;
  const conv = (await ddb.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'CONV' } }))).Item;
  const msgs =
    (
      await ddb.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
          ExpressionAttributeValues: { ':pk': pk, ':m': 'MSG#' },
        }),
      )
    ).Items ?? [];
  return {
    messageCount: conv?.messageCount as number | undefined,
    stored: msgs.length,
    users: msgs.filter((m) => m.role === 'user').length,
    userMessageCount: conv?.userMessageCount,
  };
}

describe('DynamoDB hangs (SIGSTOP), then comes back (SIGCONT)', () => {
  it('answers 503 within the bound on chat and admin routes, half-writes nothing, recovers without a restart', async () => {
    const first = await call('POST', '/api/v1/chat/message', {
      widgetKey: tenant.widgetKey,
      body: { message: 'hello there' },
    });
    expect(first.status).toBe(200);
    const conv = first.body.conversationId as string;

    rt.dynamo!.process.kill('SIGSTOP');
    let results: R[];
    try {
      results = await Promise.all([
        call('POST', '/api/v1/chat/message', {
          widgetKey: tenant.widgetKey,
          body: { message: 'where is my order 123?', conversationId: conv },
        }),
        call('POST', '/api/v1/chat/message', { widgetKey: tenant.widgetKey, body: { message: 'a new conversation' } }),
        call('POST', '/api/v1/chat/escalate', {
          widgetKey: tenant.widgetKey,
          body: { conversationId: conv, reason: 'outage' },
        }),
        call('GET', `/api/v1/chat/conversations/${conv}`, { widgetKey: tenant.widgetKey }),
        call('GET', '/api/v1/admin/auth/me', { token: tenant.token }),
      ]);
    } finally {
      rt.dynamo!.process.kill('SIGCONT');
    }
    for (const [i, r] of results.entries()) expectUnavailable(r, `request ${i}`);

    // Requests the stopped server had queued may be applied after it resumes: each is all or nothing.
    // Read once nothing moves any more (two reads alike: no write fell between the item and its messages).
    const c = await eventually(async () => {
      const [one, two] = [await consistent(conv), await consistent(conv)];
      expect(two, 'the conversation still changing').toEqual(one);
      return two;
    });
    expect(c.messageCount).toBe(c.stored);
    expect(c.userMessageCount).toBe(c.users);

    // Recovery without a restart.
    const again = await call('POST', '/api/v1/chat/message', {
      widgetKey: tenant.widgetKey,
      body: { message: 'are you back?', conversationId: conv },
    });
    expect(again.status).toBe(200);
    const after = await consistent(conv);
    expect(after.messageCount).toBe(after.stored);
    const read = await call('GET', `/api/v1/chat/conversations/${conv}`, { widgetKey: tenant.widgetKey });
    expect(read.status).toBe(200);
    expect(read.body.messages).toHaveLength(after.stored);
    expect((await call('GET', '/api/v1/admin/auth/me', { token: tenant.token })).status).toBe(200);
  }, 60_000);
});

describe('DynamoDB dies (SIGKILL)', () => {
  it('answers 503 with Retry-After promptly and never hangs', async () => {
    const proc = rt.dynamo!.process;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
    const results = await Promise.all([
      call('POST', '/api/v1/chat/message', { widgetKey: tenant.widgetKey, body: { message: 'hello' } }),
      call('GET', '/api/v1/admin/auth/me', { token: tenant.token }),
      call('POST', '/api/v1/admin/auth/onboard', {
        token: await rt.idp.token({ sub: `late-${randomUUID()}` }),
        body: { tenantName: 'Late' },
      }),
    ]);
    for (const [i, r] of results.entries()) expectUnavailable(r, `request ${i}`);
  }, 60_000);
});
