import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LiveGateway } from './live.ts';
import type { LocalMail } from './smtp.ts';
import type { LocalObjects } from './objects.ts';
import { isQueueRequest, type LocalQueue } from './queue.ts';
import { signatureProblem, type LocalCredentials } from './sigv4.ts';

// The stand-ins for S3, SQS, the WebSocket API's management endpoint and the mail catcher's page,
// on a loopback port of their own: never the dashboard's origin, where its tokens live in
// localStorage, so an object planted in the bucket can never run as the dashboard. As in AWS, every
// S3, SQS and management request must be signed with the runtime's credentials (sigv4.ts) or it is
// refused (the management API's IAM auth: no page can post to a socket); the caught mail, a page
// for the developer, is served only under a secret made at each start (the address `npm start`
// prints); nothing here answers CORS, so no other page can read an answer; and a Host that is not
// this loopback address is refused (DNS rebinding).

const BODY_LIMIT = 10 * 1024 * 1024;

export interface StandIns {
  url: string;
  port: number;
  /** The caught mail's page (its JSON at `/messages.json` below it): the only address that shows it. */
  mailUrl: string;
  stop(): Promise<void>;
}

export interface StandInsOptions {
  port?: number;
  credentials: LocalCredentials;
  objects: () => LocalObjects;
  /** The queue a request names (by its body's QueueUrl). */
  queueOf: (body: string) => LocalQueue;
  mail: () => LocalMail | null;
  /** The WebSocket API's management endpoint's path here (`<path>/@connections/{id}`), and its gateway. */
  managementPath?: string;
  live?: () => Pick<LiveGateway, 'manage'> | null;
}

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const MAIL_PATH = '/local-mail';

function s3Refusal(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { ...HEADERS, 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** As API Gateway refuses a management call without a valid IAM signature. */
function managementRefusal(res: ServerResponse, message: string) {
  res.writeHead(403, { ...HEADERS, 'content-type': 'application/json', 'x-amzn-errortype': 'ForbiddenException' });
  res.end(JSON.stringify({ message }));
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
  const mailSecret = randomBytes(18).toString('base64url');
  const mailPrefix = `${MAIL_PATH}/${mailSecret}`;
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
    const live = o.managementPath ? o.live?.() : null;
    if (live && url.pathname.startsWith(`${o.managementPath}/`)) {
      const problem = await signatureProblem({ method, url, headers: req.headers, body }, o.credentials, 'execute-api');
      if (problem) return managementRefusal(res, problem);
      for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
      if (live.manage(method, url.pathname, body, res)) return;
    }
    for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
    if (url.pathname === MAIL_PATH || url.pathname.startsWith(`${MAIL_PATH}/`)) {
      // Every tenant's mail, reply-address tokens included: only under this start's secret.
      const rest = mailRest(url.pathname);
      if (rest === null) {
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end('The caught mail is at the address `npm start` printed (it changes at every start).\n');
      }
      if (method === 'GET' && o.mail()?.serve(MAIL_PATH + rest, res)) return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
  }

  /** The path after this start's mail prefix ('' or '/messages.json'), or null when the secret is not there. */
  function mailRest(pathname: string): string | null {
    const given = Buffer.from(pathname.slice(0, mailPrefix.length));
    if (given.length !== mailPrefix.length || !timingSafeEqual(given, Buffer.from(mailPrefix))) return null;
    const rest = pathname.slice(mailPrefix.length);
    return rest === '' || rest.startsWith('/') ? rest : null;
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
    mailUrl: `http://127.0.0.1:${port}${mailPrefix}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
