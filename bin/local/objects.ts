import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

// A stand-in for S3 in the local runtime, in S3's REST shape (path style: `/local-s3/<bucket>/<key>`),
// so the service's own S3 client (shared/data/objects.ts) and its presigned URLs work unchanged:
// - PUT, GET, HEAD and DELETE of an object, as the SDK sends them (header-signed; not checked here,
//   as only the runtime's own functions hold the endpoint);
// - a presigned GET (`X-Amz-*` query) is checked as S3 checks it: the URL is signed again with the
//   same inputs and time and the signatures must match, and it is refused once `X-Amz-Expires` has
//   passed; `response-content-disposition` is honoured.
// Objects live in memory, or in a folder (`npm start -- --persist`).

export const OBJECTS_PATH = '/local-s3';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

interface Stored { body: Buffer; contentType: string }

export interface LocalObjects {
  endpoint: string;
  handles(path: string): boolean;
  serve(method: string, url: URL, body: Buffer, res: ServerResponse): Promise<void>;
  /** Objects stored now (tests: nothing half-written). */
  keys(bucket: string): string[];
  put(bucket: string, key: string, body: Buffer, contentType?: string): void;
}

const xmlError = (res: ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
};

/** `20261127T033000Z` as a Date. */
const amzDate = (s: string) => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
};

export function createLocalObjects(baseUrl: string, region: string, dir?: string): LocalObjects {
  const endpoint = `${baseUrl}${OBJECTS_PATH}`;
  const memory = new Map<string, Stored>();
  // Configured as shared/data/objects.ts's client, so the same inputs sign to the same URL.
  const signer = new S3Client({
    region, endpoint, forcePathStyle: true, credentials: CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const fileOf = (id: string) => join(dir!, createHash('sha256').update(id).digest('hex'));

  const store = {
    get(id: string): Stored | null {
      if (!dir) return memory.get(id) ?? null;
      const f = fileOf(id);
      if (!existsSync(f)) return null;
      return { body: readFileSync(f), contentType: readFileSync(`${f}.type`, 'utf8') };
    },
    put(id: string, s: Stored) {
      if (!dir) { memory.set(id, s); return; }
      mkdirSync(dirname(fileOf(id)), { recursive: true });
      writeFileSync(fileOf(id), s.body);
      writeFileSync(`${fileOf(id)}.type`, s.contentType);
      memory.set(id, { body: Buffer.alloc(0), contentType: s.contentType });
    },
    delete(id: string) {
      memory.delete(id);
      if (dir) { rmSync(fileOf(id), { force: true }); rmSync(`${fileOf(id)}.type`, { force: true }); }
    },
  };

  /** Null when the presigned query is good, else why not. */
  async function presignProblem(bucket: string, key: string, q: URLSearchParams): Promise<string | null> {
    const date = amzDate(q.get('X-Amz-Date') ?? '');
    const expires = Number(q.get('X-Amz-Expires'));
    const signature = q.get('X-Amz-Signature') ?? '';
    if (!date || !Number.isInteger(expires) || expires < 1 || !signature) return 'the presigned query is incomplete';
    if (Date.now() > date.getTime() + expires * 1000) return 'Request has expired';
    const disposition = q.get('response-content-disposition');
    const again = new URL(await getSignedUrl(signer, new GetObjectCommand({
      Bucket: bucket, Key: key, ...(disposition ? { ResponseContentDisposition: disposition } : {}),
    }), { expiresIn: expires, signingDate: date }));
    const expected = Buffer.from(again.searchParams.get('X-Amz-Signature') ?? '');
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given) ? null : 'The request signature we calculated does not match the signature you provided';
  }

  return {
    endpoint,
    handles: (path) => path.startsWith(`${OBJECTS_PATH}/`),
    keys: (bucket) => [...memory.keys()].filter((k) => k.startsWith(`${bucket}/`)).map((k) => k.slice(bucket.length + 1)),
    put: (bucket, key, body, contentType = 'application/octet-stream') => store.put(`${bucket}/${key}`, { body, contentType }),
    async serve(method, url, body, res) {
      const rest = url.pathname.slice(OBJECTS_PATH.length + 1);
      const slash = rest.indexOf('/');
      if (slash < 1) return xmlError(res, 400, 'InvalidRequest', 'path-style requests only: /<bucket>/<key>');
      const bucket = decodeURIComponent(rest.slice(0, slash));
      const key = rest.slice(slash + 1).split('/').map(decodeURIComponent).join('/');
      const id = `${bucket}/${key}`;
      if (method === 'PUT') {
        store.put(id, { body, contentType: String(res.req.headers['content-type'] ?? 'application/octet-stream') });
        res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        return void res.end();
      }
      if (method === 'DELETE') { store.delete(id); res.writeHead(204); return void res.end(); }
      if (method !== 'GET' && method !== 'HEAD') return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      if (url.searchParams.has('X-Amz-Signature')) {
        const problem = await presignProblem(bucket, key, url.searchParams);
        if (problem) return xmlError(res, 403, 'AccessDenied', problem);
      }
      const found = store.get(id);
      if (!found) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      const disposition = url.searchParams.get('response-content-disposition');
      res.writeHead(200, {
        'content-type': found.contentType, 'content-length': String(found.body.length),
        etag: `"${createHash('md5').update(found.body).digest('hex')}"`,
        ...(disposition ? { 'content-disposition': disposition } : {}),
      });
      res.end(method === 'HEAD' ? undefined : found.body);
    },
  };
}
