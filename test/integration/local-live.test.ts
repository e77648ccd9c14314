import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import WebSocket from 'ws';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { eventDispatcher, LIVE_PATH } from '#shared/edge/triggers.ts';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { recorder } from '../fixtures/local-live/recorder.ts';
import { eventually, present } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// The local runtime's WebSocket API, its management API and its stream event source mapping,
// driven through real sockets, the AWS SDK clients and DynamoDB Local, with stand-in handlers
// (test/fixtures/local-live) that record what they get.

const FIXTURES = fileURLToPath(new URL('../fixtures/local-live/', import.meta.url));
const fixtureHandlers: Record<string, string> = {
  'live/connect': join(FIXTURES, 'connect.ts'),
  'live/disconnect': join(FIXTURES, 'disconnect.ts'),
  'events/dispatch': join(FIXTURES, 'dispatch.ts'),
};
const resolveHandler = (name: string) =>
  fixtureHandlers[name] ?? join(fileURLToPath(new URL('../../functions/', import.meta.url)), `${name}.ts`);

const TABLE = `local-live-${process.pid}-${Date.now().toString(36)}`;
let rt: LocalRuntime;
let ddb: DynamoDBClient;
let mgmt: ApiGatewayManagementApiClient;

beforeAll(async () => {
  rt = await startLocalRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: TABLE,
    resolveHandler,
    streamPollMs: 50,
    indexer: false,
  });
  const credentials = localDatabaseCredentials(TABLE);
  ddb = new DynamoDBClient({ endpoint: rt.dynamodbEndpoint, region: 'us-east-1', credentials });
  // The management endpoint takes only what is signed with the runtime's own credentials.
  mgmt = new ApiGatewayManagementApiClient({
    endpoint: rt.liveEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: process.env.LOCAL_SECRET_ACCESS_KEY! },
  });
});

afterAll(async () => {
  mgmt?.destroy();
  ddb?.destroy();
  await rt?.stop();
});

beforeEach(() => {
  recorder.socketEvents.length = 0;
  recorder.streamEvents.length = 0;
});

interface Client {
  ws: WebSocket;
  frames: Array<{ data: string; binary: boolean }>;
  closed: Promise<{ code: number; reason: string }>;
}

function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const frames: Client['frames'] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    ws.on('message', (data, binary) => frames.push({ data: data.toString(), binary }));
    ws.once('open', () => resolve({ ws, frames, closed }));
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`refused ${res.statusCode}`), { res })),
    );
    ws.once('error', reject);
  });
}

/** The HTTP answer to an upgrade that is refused: status, headers and body. */
async function refusal(
  url: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string; opened: boolean }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let opened = false;
    ws.once('open', () => {
      opened = true;
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, opened }));
    });
    ws.once('error', (err) => {
      if (opened) resolve({ status: 101, headers: {}, body: '', opened });
      else reject(err);
    });
    ws.once('close', () => {
      if (opened) resolve({ status: 101, headers: {}, body: '', opened });
    });
  });
}

const eventOf = (routeKey: string, connectionId?: string) =>
  recorder.socketEvents.find(
    (e) =>
      e.requestContext.routeKey === routeKey &&
      (connectionId === undefined || e.requestContext.connectionId === connectionId),
  );

/** A raw POST to the management endpoint, signed with the runtime's credentials as the SDK signs it. */
async function signedFetch(url: string, body: string): Promise<Response> {
  const u = new URL(url);
  const signer = new SignatureV4({
    credentials: { accessKeyId: 'local', secretAccessKey: process.env.LOCAL_SECRET_ACCESS_KEY! },
    region: 'us-east-1',
    service: 'execute-api',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: u.protocol,
    hostname: u.hostname,
    port: Number(u.port),
    path: u.pathname,
    headers: { host: u.host },
    body,
  });
  const { host: _host, ...headers } = signed.headers;
  return fetch(url, { method: 'POST', body, headers });
}

/** Closes the client's socket and waits for its $disconnect: a late one would land in the next test's events. */
async function hangUp(c: { ws: WebSocket; closed: Promise<unknown> }) {
  const id = eventOf('$connect')!.requestContext.connectionId;
  c.ws.close();
  await c.closed;
  await eventually(() => present(eventOf('$disconnect', id), 'its $disconnect'));
}

describe('the WebSocket API', () => {
  it('gives the URL in env and in the runtime', () => {
    expect(rt.liveUrl).toBe(`${rt.url.replace(/^http/, 'ws')}${LIVE_PATH}`);
    expect(process.env.LIVE_URL).toBe(rt.liveUrl);
    expect(process.env.LIVE_ENDPOINT).toBe(rt.liveEndpoint);
  });

  it('builds the $connect event as API Gateway does and completes the upgrade on 2xx', async () => {
    const before = Date.now();
    const c = await connect(`${rt.liveUrl}?widgetKey=wk_abc&conversationId=c-1&tag=a&tag=b`, {
      'X-Custom': 'one',
      'User-Agent': 'live-test',
    });
    const e = eventOf('$connect')!;
    expect(e).toBeDefined();
    const ctx = e.requestContext;
    expect(ctx).toMatchObject({
      routeKey: '$connect',
      eventType: 'CONNECT',
      messageDirection: 'IN',
      stage: expect.any(String),
      apiId: expect.any(String),
      domainName: new URL(rt.url).host,
      identity: { sourceIp: '127.0.0.1', userAgent: 'live-test' },
    });
    expect(ctx.connectionId).toMatch(/^[A-Za-z0-9]{15}=$/);
    expect(ctx.requestId).toMatch(/^[A-Za-z0-9]+=*$/);
    expect(ctx.extendedRequestId).toMatch(/^[A-Za-z0-9]+=*$/);
    expect(ctx.connectedAt).toBeGreaterThanOrEqual(before);
    expect(ctx.requestTimeEpoch).toBeGreaterThanOrEqual(ctx.connectedAt);
    expect(ctx.requestTime).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(e.headers['X-Custom']).toBe('one');
    expect(e.multiValueHeaders['X-Custom']).toEqual(['one']);
    expect(Object.keys(e.headers).some((h) => h.toLowerCase() === 'sec-websocket-key')).toBe(true);
    expect(e.headers['X-Forwarded-For']).toBe('127.0.0.1');
    expect(e.queryStringParameters).toEqual({ widgetKey: 'wk_abc', conversationId: 'c-1', tag: 'b' });
    expect(e.multiValueQueryStringParameters).toEqual({
      widgetKey: ['wk_abc'],
      conversationId: ['c-1'],
      tag: ['a', 'b'],
    });
    expect(e.isBase64Encoded).toBe(false);
    expect(rt.liveConnections()).toContain(ctx.connectionId);
    await hangUp(c);
  });

  it.each([401, 403, 404])("refuses the upgrade with the handler's %i and body, before any frame", async (status) => {
    const r = await refusal(`${rt.liveUrl}?refuse=${status}`);
    expect(r.opened).toBe(false);
    expect(r.status).toBe(status);
    expect(JSON.parse(r.body)).toEqual({ status, code: 'REFUSED' });
    expect(r.headers['content-type']).toBe('application/problem+json');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(rt.liveConnections()).not.toContain(eventOf('$connect')!.requestContext.connectionId);
  });

  it('answers 500 when $connect throws, and 404 on another path, without a socket', async () => {
    expect(await refusal(`${rt.liveUrl}?fail=1`)).toMatchObject({ status: 500, opened: false });
    const calls = recorder.socketEvents.length;
    expect(await refusal(`${rt.url.replace(/^http/, 'ws')}/api/v1/elsewhere`)).toMatchObject({
      status: 404,
      opened: false,
    });
    expect(recorder.socketEvents.length).toBe(calls);
  });

  it('answers a plain request to the live path with 426, without a handler', async () => {
    const res = await fetch(rt.url + LIVE_PATH);
    expect(res.status).toBe(426);
    expect(recorder.socketEvents).toEqual([]);
  });

  it('invokes $disconnect with the close code and reason when the client closes', async () => {
    const c = await connect(rt.liveUrl);
    const id = eventOf('$connect')!.requestContext.connectionId;
    c.ws.close(4000, 'bye');
    await c.closed;
    const d = await eventually(() => present(eventOf('$disconnect', id), '$disconnect'));
    expect(d.requestContext).toMatchObject({
      routeKey: '$disconnect',
      eventType: 'DISCONNECT',
      connectionId: id,
      disconnectStatusCode: 4000,
      disconnectReason: 'bye',
      connectedAt: eventOf('$connect')!.requestContext.connectedAt,
      messageDirection: 'IN',
    });
    expect(rt.liveConnections()).not.toContain(id);
  });

  it('ignores frames from clients (no $default route) and keeps the connection', async () => {
    const c = await connect(rt.liveUrl);
    const id = eventOf('$connect')!.requestContext.connectionId;
    c.ws.send('hello');
    // The management API answering for the connection after the frame shows the frame was read and the socket kept.
    await eventually(async () => {
      const info = await mgmt.send(new GetConnectionCommand({ ConnectionId: id }));
      expect(info.LastActiveAt!.getTime(), 'the frame read (LastActiveAt)').toBeGreaterThan(
        info.ConnectedAt!.getTime(),
      );
    });
    expect(recorder.socketEvents.map((e) => e.requestContext.routeKey)).toEqual(['$connect']);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    await hangUp(c);
  });
});

describe('the management API through @aws-sdk/client-apigatewaymanagementapi', () => {
  it('posts one text frame, tells about the connection, closes it, and then answers GoneException', async () => {
    const c = await connect(rt.liveUrl, { 'User-Agent': 'mgmt-test' });
    const id = eventOf('$connect')!.requestContext.connectionId;
    const data = JSON.stringify({ type: 'message.created', data: { text: 'héllo ✓' } });
    await mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: data }));
    await eventually(() => expect(c.frames.length, 'frames on the socket').toBeGreaterThan(0));
    expect(c.frames).toEqual([{ data, binary: false }]);

    const info = await mgmt.send(new GetConnectionCommand({ ConnectionId: id }));
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    expect(info.ConnectedAt!.getTime()).toBe(eventOf('$connect')!.requestContext.connectedAt);
    expect(info.LastActiveAt!.getTime()).toBeGreaterThanOrEqual(info.ConnectedAt!.getTime());
    expect(info.Identity).toEqual({ SourceIp: '127.0.0.1', UserAgent: 'mgmt-test' });

    await mgmt.send(new DeleteConnectionCommand({ ConnectionId: id }));
    await c.closed;
    await eventually(() => present(eventOf('$disconnect', id), '$disconnect'));

    const gone = await mgmt
      .send(new PostToConnectionCommand({ ConnectionId: id, Data: 'late' }))
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(GoneException);
    expect((gone as GoneException).$metadata.httpStatusCode).toBe(410);
    await expect(mgmt.send(new GetConnectionCommand({ ConnectionId: id }))).rejects.toBeInstanceOf(GoneException);
    await expect(mgmt.send(new DeleteConnectionCommand({ ConnectionId: id }))).rejects.toBeInstanceOf(GoneException);
  });

  it('answers GoneException for a connection that never was', async () => {
    await expect(
      mgmt.send(new PostToConnectionCommand({ ConnectionId: 'Nope123456789A=', Data: 'x' })),
    ).rejects.toBeInstanceOf(GoneException);
    const raw = await signedFetch(`${rt.liveEndpoint}/@connections/${encodeURIComponent('Nope123456789A=')}`, 'x');
    expect(raw.status).toBe(410);
    expect(raw.headers.get('x-amzn-errortype')).toBe('GoneException');
    expect(await raw.json()).toEqual({ message: null });
  });

  it("is on the stand-ins' port, not the API's, and refuses calls unsigned, foreign-signed or forged, with no CORS", async () => {
    const c = await connect(rt.liveUrl);
    const id = eventOf('$connect')!.requestContext.connectionId;
    const at = `${rt.liveEndpoint}/@connections/${encodeURIComponent(id)}`;
    expect(new URL(rt.liveEndpoint).origin).toBe(rt.standInsUrl);
    expect(new URL(rt.liveEndpoint).origin).not.toBe(new URL(rt.url).origin);
    expect(
      (await fetch(`${rt.url}/local-live/@connections/${encodeURIComponent(id)}`, { method: 'POST', body: 'x' }))
        .status,
    ).toBe(404);

    const unsigned = await fetch(at, { method: 'POST', body: 'planted', headers: { origin: 'https://evil.example' } });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toBe('ForbiddenException');
    expect(unsigned.headers.get('access-control-allow-origin')).toBeNull();
    for (const method of ['GET', 'DELETE']) expect((await fetch(at, { method })).status, method).toBe(403);
    const preflight = await fetch(at, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const forged = await fetch(at, {
      method: 'POST',
      body: 'forged',
      headers: {
        authorization: `AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
        'x-amz-date': new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
      },
    });
    expect(forged.status).toBe(403);
    const stranger = new ApiGatewayManagementApiClient({
      endpoint: rt.liveEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    await expect(
      stranger.send(new PostToConnectionCommand({ ConnectionId: id, Data: 'foreign' })),
    ).rejects.toMatchObject({
      name: 'ForbiddenException',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(stranger.send(new DeleteConnectionCommand({ ConnectionId: id }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    stranger.destroy();

    // The signed call goes through, and it is the only frame the socket ever got.
    await mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: 'signed' }));
    await eventually(() => expect(c.frames.length).toBeGreaterThan(0), { what: 'the frame' });
    expect(c.frames).toEqual([{ data: 'signed', binary: false }]);
    expect(rt.liveConnections()).toContain(id);
    await hangUp(c);
  });

  it('refuses a message over 128 KiB with PayloadTooLargeException and sends nothing', async () => {
    const c = await connect(rt.liveUrl);
    const id = eventOf('$connect')!.requestContext.connectionId;
    await expect(
      mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: 'x'.repeat(128 * 1024 + 1) })),
    ).rejects.toMatchObject({ name: 'PayloadTooLargeException' });
    await mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: 'x'.repeat(128 * 1024) }));
    await eventually(() => expect(c.frames.length, 'frames on the socket').toBeGreaterThan(0));
    expect(c.frames.map((f) => f.data.length)).toEqual([128 * 1024]);
    await hangUp(c);
  });
});

describe('idle connections', () => {
  it('are closed with 1001 after the idle time, and $disconnect says so', async () => {
    const idle = await startLocalRuntime({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      tableName: `${TABLE}-idle`,
      resolveHandler,
      liveIdleSeconds: 1,
      stream: false,
    });
    try {
      const c = await connect(idle.liveUrl);
      const id = eventOf('$connect')!.requestContext.connectionId;
      expect(await c.closed).toEqual({ code: 1001, reason: 'Going away' });
      const d = await eventually(() => present(eventOf('$disconnect', id), '$disconnect'));
      expect(d.requestContext).toMatchObject({ disconnectStatusCode: 1001, disconnectReason: 'Going away' });
    } finally {
      await idle.stop();
      // The idle runtime set the env for its own ports; the tests after this one use the main runtime.
      Object.assign(process.env, { LIVE_URL: rt.liveUrl, LIVE_ENDPOINT: rt.liveEndpoint });
    }
  });
});

describe('the stream event source mapping', () => {
  let n = 0;
  const pk = `TENANT#t-${process.pid}#EVENTS#c-1`;
  const put = (sk: string, attrs: Record<string, { S: string } | { N: string }> = {}, type = 'event') =>
    ddb.send(
      new PutItemCommand({ TableName: TABLE, Item: { pk: { S: pk }, sk: { S: sk }, type: { S: type }, ...attrs } }),
    );
  const newId = (label: string) => `EVT#${String(n++).padStart(4, '0')}-${label}`;
  const records = () => recorder.streamEvents.flatMap((e) => e.Records);

  it("invokes the dispatcher with DynamoDB stream records in Lambda's shape", async () => {
    const id = newId('shape');
    const before = Math.floor(Date.now() / 1000);
    await put(id, { payload: { S: '{"a":1}' }, n: { N: '42' } });
    await eventually(() => expect(recorder.delivered).toContain(id));
    const r = records().find((x) => x.dynamodb?.NewImage?.sk?.S === id)!;
    expect(Object.keys(r)).toEqual([
      'eventID',
      'eventName',
      'eventVersion',
      'eventSource',
      'awsRegion',
      'dynamodb',
      'eventSourceARN',
    ]);
    expect(r).toMatchObject({
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: process.env.AWS_REGION,
      eventID: expect.any(String),
      eventSourceARN: expect.stringMatching(new RegExp(`^arn:aws:dynamodb:[^:]+:\\d+:table/${TABLE}/stream/`)),
    });
    expect(r.dynamodb).toEqual({
      ApproximateCreationDateTime: expect.any(Number),
      Keys: { pk: { S: pk }, sk: { S: id } },
      NewImage: { pk: { S: pk }, sk: { S: id }, type: { S: 'event' }, payload: { S: '{"a":1}' }, n: { N: '42' } },
      SequenceNumber: expect.stringMatching(/^\d+$/),
      SizeBytes: expect.any(Number),
      StreamViewType: 'NEW_IMAGE',
    });
    expect(r.dynamodb!.ApproximateCreationDateTime).toBeGreaterThanOrEqual(before - 60); // DynamoDB Local rounds it down to the minute
    expect(r.dynamodb!.ApproximateCreationDateTime).toBeLessThan(before + 600);
  });

  it("passes only what the trigger's filter lets through (inserted event items)", async () => {
    expect(eventDispatcher.filter).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { type: { S: ['event'] } } },
    });
    const other = newId('other');
    const modified = newId('modified');
    await put(other, {}, 'conversation');
    await put(modified, {});
    await ddb.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: pk }, sk: { S: modified } },
        UpdateExpression: 'SET payload = :p',
        ExpressionAttributeValues: { ':p': { S: 'changed' } },
      }),
    );
    // Same partition, so the stream keeps the order: once the marker is through, the others have been judged.
    const marker = newId('marker');
    await put(marker);
    await eventually(() => expect(recorder.delivered).toContain(marker));
    const seen = records().map((r) => `${r.eventName} ${r.dynamodb?.NewImage?.sk?.S}`);
    expect(seen).not.toContain(`INSERT ${other}`);
    expect(seen).not.toContain(`MODIFY ${modified}`);
    expect(seen).toContain(`INSERT ${modified}`);
    expect(records().every((r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage?.type?.S === 'event')).toBe(true);
  });

  it('retries a batch from its first failed record, in order, until it succeeds', async () => {
    const [a, b, c] = [newId('a'), newId('b'), newId('c')];
    await put(a);
    await put(b, { failTimes: { N: '2' } });
    await put(c);
    await eventually(() => expect(recorder.delivered).toContain(c));
    expect(recorder.delivered.filter((x) => [a, b, c].includes(x))).toEqual([a, b, c]);
    expect(recorder.attempts.get(a)).toBe(1);
    expect(recorder.attempts.get(b)).toBe(3);
    expect(recorder.attempts.get(c)).toBe(1);
    // No retry sends a record before the failed one again.
    const batchesWithB = recorder.streamEvents.filter((e) => e.Records.some((r) => r.dynamodb?.NewImage?.sk?.S === b));
    for (const e of batchesWithB.slice(1)) expect(e.Records[0]!.dynamodb!.NewImage!.sk!.S).toBe(b);
  });

  it('retries a batch whose handler throws', async () => {
    const t = newId('throws');
    await put(t, { throwTimes: { N: '1' } });
    await eventually(() => expect(recorder.delivered).toContain(t));
    expect(recorder.attempts.get(t)).toBe(2);
  });

  it('drops a batch after retryAttempts retries to an on-failure record, and moves on', async () => {
    const bad = newId('poison');
    await put(bad, { failTimes: { N: '1000' } });
    const failure = await eventually(() =>
      present(
        rt
          .streamFailures()
          .find((f) =>
            records().some(
              (r) =>
                r.dynamodb?.NewImage?.sk?.S === bad &&
                r.dynamodb.SequenceNumber === f.DDBStreamBatchInfo.startSequenceNumber,
            ),
          ),
        'the on-failure record',
      ),
    );
    expect(recorder.attempts.get(bad)).toBe(eventDispatcher.retryAttempts + 1);
    expect(failure).toMatchObject({
      requestContext: {
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: eventDispatcher.retryAttempts + 1,
      },
      version: '1.0',
      DDBStreamBatchInfo: { batchSize: 1, streamArn: records()[0]!.eventSourceARN, shardId: expect.any(String) },
    });
    const next = newId('after');
    await put(next);
    await eventually(() => expect(recorder.delivered).toContain(next));
    expect(recorder.attempts.get(bad)).toBe(eventDispatcher.retryAttempts + 1);
  });

  it('carries an event from a table write to a live socket through the management API', async () => {
    const c = await connect(rt.liveUrl);
    const payload = JSON.stringify({ id: 'evt_1', type: 'message.created', data: { conversationId: 'c-1' } });
    await put(newId('live'), { payload: { S: payload } });
    await eventually(() => expect(c.frames.length, 'frames on the socket').toBeGreaterThan(0));
    expect(c.frames).toEqual([{ data: payload, binary: false }]);
    await hangUp(c);
  });
});

describe('stop', () => {
  it('closes open sockets with 1001 and runs their $disconnect before it returns', async () => {
    const other = await startLocalRuntime({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      tableName: `${TABLE}-stop`,
      resolveHandler,
      streamPollMs: 50,
    });
    const c = await connect(other.liveUrl);
    const id = eventOf('$connect')!.requestContext.connectionId;
    await other.stop();
    Object.assign(process.env, { LIVE_URL: rt.liveUrl, LIVE_ENDPOINT: rt.liveEndpoint });
    expect(eventOf('$disconnect', id)?.requestContext).toMatchObject({
      disconnectStatusCode: 1001,
      disconnectReason: 'Going away',
    });
    expect((await c.closed).code).toBe(1001);
  });
});
