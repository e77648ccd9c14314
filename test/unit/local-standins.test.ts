import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalObjects, type LocalObjects } from '../../local/objects.ts';
import { createLocalQueue, type LocalQueue } from '../../local/queue.ts';
import { newLocalCredentials } from '../../local/sigv4.ts';
import { type StandIns, startStandIns } from '../../local/standins.ts';
import type { LocalMail } from '../../local/smtp.ts';

// The stand-ins for S3 and SQS answer only what is signed with the runtime's credentials (and in
// time), on their own loopback port, and to no other page: no CORS, no other Host.

const credentials = newLocalCredentials();
const strangers = { accessKeyId: 'local', secretAccessKey: 'local' };
let si: StandIns;
let objects: LocalObjects;
let queue: LocalQueue;
const received: string[] = [];
const mail = {
  serve: (path: string, res: import('node:http').ServerResponse) => {
    if (path !== '/local-mail/messages.json') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"items":[{"replyTo":"shop+secret@mail.localhost"}]}');
    return true;
  },
} as unknown as LocalMail;
/** What reached the management API's gateway: only signed calls may. */
const managed: string[] = [];
const live = {
  manage: (method: string, pathname: string, body: Buffer, res: import('node:http').ServerResponse) => {
    if (!pathname.startsWith('/local-live/@connections/')) return false;
    managed.push(`${method} ${decodeURIComponent(pathname.slice(25))} ${body.toString('utf8')}`);
    res.writeHead(200);
    res.end();
    return true;
  },
};
const management = (creds = credentials) =>
  new ApiGatewayManagementApiClient({
    region: 'us-east-1',
    endpoint: `${si.url}/local-live`,
    credentials: creds,
    maxAttempts: 1,
  });

const s3 = (creds = credentials) =>
  new S3Client({
    region: 'us-east-1',
    endpoint: objects.endpoint,
    forcePathStyle: true,
    credentials: creds,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
const sqs = (creds = credentials) =>
  new SQSClient({ region: 'us-east-1', endpoint: queue.endpoint, credentials: creds, maxAttempts: 1 });
const link = (key: string, disposition?: string, opts: { expiresIn?: number; signingDate?: Date } = {}) =>
  getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: 'mail',
      Key: key,
      ...(disposition ? { ResponseContentDisposition: disposition } : {}),
    }),
    { expiresIn: 300, ...opts },
  );

beforeAll(async () => {
  si = await startStandIns({
    credentials,
    objects: () => objects,
    queueOf: () => queue,
    mail: () => mail,
    managementPath: '/local-live',
    live: () => live,
  });
  objects = createLocalObjects(si.url);
  queue = createLocalQueue({
    name: 'q',
    baseUrl: si.url,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
    handler: async () => async (e) => {
      received.push(...e.Records.map((r) => r.body));
      return undefined;
    },
  });
});
afterAll(async () => {
  await queue.stop();
  await si.stop();
});

describe('the S3 stand-in', () => {
  it("takes what the SDK signs with the runtime's credentials and refuses the same calls unsigned or signed with another secret", async () => {
    await s3().send(
      new PutObjectCommand({ Bucket: 'mail', Key: 'a b/ü+1.txt', Body: 'hello', ContentType: 'text/plain' }),
    );
    const got = await s3().send(new GetObjectCommand({ Bucket: 'mail', Key: 'a b/ü+1.txt' }));
    expect(await got.Body!.transformToString()).toBe('hello');

    await expect(
      s3(strangers).send(
        new PutObjectCommand({
          Bucket: 'mail',
          Key: 'planted.html',
          Body: '<script>1</script>',
          ContentType: 'text/html',
        }),
      ),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    await expect(
      s3(strangers).send(new DeleteObjectCommand({ Bucket: 'mail', Key: 'a b/ü+1.txt' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    const plain = `${objects.endpoint}/mail/planted.html`;
    for (const method of ['PUT', 'DELETE', 'GET', 'HEAD']) {
      const r = await fetch(plain, {
        method,
        ...(method === 'PUT' ? { body: '<script>1</script>', headers: { 'content-type': 'text/html' } } : {}),
      });
      expect(r.status, method).toBe(403);
    }
    // A forged Authorization header (any signature) is refused too.
    const forged = await fetch(`${objects.endpoint}/mail/a%20b/%C3%BC%2B1.txt`, {
      method: 'DELETE',
      headers: {
        authorization: `AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
        'x-amz-date': new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
      },
    });
    expect(forged.status).toBe(403);
    expect(objects.keys('mail')).toEqual(['a b/ü+1.txt']);
  });

  it('serves a presigned GET while it lives, and refuses it stripped, altered or expired', async () => {
    objects.put('mail', 'files/r.txt', Buffer.from('report'), 'text/plain');
    const url = await link('files/r.txt', 'attachment; filename="r.txt"');
    expect((await fetch(url)).status).toBe(200);
    const stripped = new URL(url);
    stripped.search = '';
    expect((await fetch(stripped)).status).toBe(403);
    const other = new URL(url);
    other.searchParams.set('response-content-disposition', 'inline');
    expect((await fetch(other)).status).toBe(403);
    const moved = new URL(url);
    moved.pathname = moved.pathname.replace('r.txt', 's.txt');
    expect((await fetch(moved)).status).toBe(403);
    const expired = await link('files/r.txt', undefined, {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    const r = await fetch(expired);
    expect(r.status).toBe(403);
    expect(await r.text()).toContain('expired');
  });

  it('serves anything but an image as a download with nosniff, whatever the link asked', async () => {
    objects.put('mail', 'files/page.html', Buffer.from('<script>alert(1)</script>'), 'text/html');
    objects.put(
      'mail',
      'files/pic.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    );
    objects.put('mail', 'files/pic.png', Buffer.from('png'), 'image/png');
    for (const key of ['files/page.html', 'files/pic.svg']) {
      for (const asked of [undefined, 'inline; filename="x"']) {
        const r = await fetch(await link(key, asked));
        expect(r.status).toBe(200);
        expect(r.headers.get('content-disposition'), `${key} ${asked}`).toMatch(/^attachment/);
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      }
    }
    const png = await fetch(await link('files/pic.png', 'inline; filename="pic.png"'));
    expect(png.headers.get('content-disposition')).toBe('inline; filename="pic.png"');
    expect(png.headers.get('x-content-type-options')).toBe('nosniff');
    // The dashboard, on another origin, shows it as an <img>: embeddable, as S3's are (still no CORS).
    expect(png.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(png.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the SQS stand-in', () => {
  it("takes calls signed with the runtime's credentials and refuses anonymous or foreign ones", async () => {
    await sqs().send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'signed' }));
    await expect(
      sqs(strangers).send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'foreign' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    const anonymous = await fetch(queue.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: queue.url, MessageBody: 'anonymous' }),
    });
    expect(anonymous.status).toBe(403);
    await queue.idle();
    expect(received).toEqual(['signed']);
  });
});

describe("the WebSocket API's management endpoint", () => {
  it("posts to a socket only when signed with the runtime's credentials (execute-api), as IAM auth requires", async () => {
    const at = `${si.url}/local-live/@connections/${encodeURIComponent('Abc123456789X=')}`;
    const unsigned = await fetch(at, { method: 'POST', body: 'planted', headers: { origin: 'https://evil.example' } });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toBe('ForbiddenException');
    expect(unsigned.headers.get('access-control-allow-origin')).toBeNull();
    for (const method of ['GET', 'DELETE']) expect((await fetch(at, { method })).status, method).toBe(403);
    await expect(
      management(strangers).send(new PostToConnectionCommand({ ConnectionId: 'Abc123456789X=', Data: 'foreign' })),
    ).rejects.toMatchObject({ name: 'ForbiddenException', $metadata: { httpStatusCode: 403 } });
    // Signed with the runtime's secret but for another service (S3's scope) is not signed for this one.
    const u = new URL(at);
    const other = await new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: Sha256 }).sign({
      method: 'POST',
      protocol: 'http:',
      hostname: u.hostname,
      port: Number(u.port),
      path: u.pathname,
      headers: { host: u.host },
      body: 'other',
    });
    const { host: _host, ...otherHeaders } = other.headers;
    const s3Signed = await fetch(at, { method: 'POST', body: 'other', headers: otherHeaders });
    expect(s3Signed.status).toBe(403);
    expect(managed).toEqual([]);

    await management().send(new PostToConnectionCommand({ ConnectionId: 'Abc123456789X=', Data: 'signed' }));
    expect(managed).toEqual(['POST Abc123456789X= signed']);
  });
});

describe('the caught mail', () => {
  it("is served only under this start's secret, to no other origin", async () => {
    expect(si.mailUrl.startsWith(`${si.url}/local-mail/`)).toBe(true);
    const page = await fetch(`${si.mailUrl}/messages.json`, { headers: { origin: 'https://evil.example' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const secret = si.mailUrl.slice(`${si.url}/local-mail/`.length);
    for (const path of [
      '/local-mail/messages.json',
      '/local-mail',
      `/local-mail/${secret.slice(0, -1)}/messages.json`,
      `/local-mail/${secret}x/messages.json`,
      `/local-mail/messages.json/${secret}`,
    ]) {
      const r = await fetch(si.url + path);
      expect(r.status, path).toBe(403);
      expect(await r.text()).not.toContain('shop+secret');
    }
  });
});

describe("the stand-ins' port", () => {
  it('answers no cross-origin read: no preflight granted, no CORS header, and no other Host', async () => {
    const pre = await fetch(`${objects.endpoint}/mail/x`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' },
    });
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const page = await fetch(`${si.mailUrl}/messages.json`, { headers: { origin: 'https://evil.example' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(page.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    // A name that resolves here (DNS rebinding) is not this server's name.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(`${si.mailUrl}/messages.json`, { headers: { host: `evil.example:${si.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(421);
  });
});
