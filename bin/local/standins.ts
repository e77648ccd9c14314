import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LocalMail } from './smtp.ts';
import type { LocalObjects } from './objects.ts';
import { isQueueRequest, type LocalQueue } from './queue.ts';
import { signatureProblem, type LocalCredentials } from './sigv4.ts';

// The stand-ins for S3, SQS and the mail catcher's page, on a loopback port of their own: never the
// dashboard's origin, where its tokens live in localStorage, so an object planted in the bucket can
// never run as the dashboard. As in AWS, every S3 and SQS request must be signed with the runtime's
// credentials (sigv4.ts) or it is refused; nothing here answers CORS, so no other page can read an
// answer; and a Host that is not this loopback address is refused (DNS rebinding).

const BODY_LIMIT = 10 * 1024 * 1024;

export interface StandIns {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface StandInsOptions {
  port?: number;
  credentials: LocalCredentials;
  objects: () => LocalObjects;
  /** The queue a request names (by its body's QueueUrl). */
  queueOf: (body: string) => LocalQueue;
  mail: () => LocalMail | null;
}

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

function s3Refusal(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { ...HEADERS, 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

function sqsRefusal(res: ServerResponse, message: string) {
  res.writeHead(403, {
    ...HEADERS,
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-query-error': 'SignatureDoesNotMatch;Sender',
  });
  res.end(JSON.stringify({ __type: 'com.amazon.coral.service#SignatureDoesNotMatch', message }));
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function startStandIns(o: StandInsOptions): Promise<StandIns> {
  let hosts = new Set<string>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('local stand-ins error', err);
      if (!res.headersSent) {
        res.writeHead(500, HEADERS);
        res.end();
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = (req.method ?? 'GET').toUpperCase();
    if (!hosts.has(String(req.headers.host ?? '').toLowerCase())) {
      req.resume();
      res.writeHead(421, { ...HEADERS, 'content-type': 'text/plain' });
      return void res.end('this server answers only on its loopback address');
    }
    // No preflight is ever granted: a page elsewhere can neither send signed calls nor read answers.
    if (method === 'OPTIONS') {
      req.resume();
      res.writeHead(403, HEADERS);
      return void res.end();
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const body = await readBody(req);
    if (body === null) {
      res.writeHead(413, HEADERS);
      return void res.end();
    }
    const objects = o.objects();
    if (objects.handles(url.pathname)) {
      const problem = await signatureProblem({ method, url, headers: req.headers, body }, o.credentials, 's3');
      if (problem)
        return s3Refusal(
          res,
          403,
          problem === 'Request has expired' ? 'AccessDenied' : 'SignatureDoesNotMatch',
          problem,
        );
      for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
      // The dashboard, on another origin, embeds presigned attachments as <img> (S3 sends no CORP);
      // embedding is not reading, and nothing here answers CORS.
      res.setHeader('cross-origin-resource-policy', 'cross-origin');
      return objects.serve(method, url, body, res);
    }
    if (isQueueRequest(url.pathname)) {
      const problem = await signatureProblem({ method, url, headers: req.headers, body }, o.credentials, 'sqs');
      if (problem) return sqsRefusal(res, problem);
      const text = body.toString('utf8');
      const r = o.queueOf(text).serve(String(req.headers['x-amz-target'] ?? ''), text);
      res.writeHead(r.status, { ...HEADERS, ...r.headers });
      return void res.end(r.body);
    }
    for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
    if (method === 'GET' && o.mail()?.serve(url.pathname, res)) return;
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
