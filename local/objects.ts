import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

// A stand-in for S3 in the local runtime, in S3's REST shape (path style: `/local-s3/<bucket>/<key>`),
// so the service's own S3 client (shared/data/objects.ts) and its presigned URLs work unchanged:
// PUT, GET, HEAD and DELETE of an object, as the SDK sends them, and presigned GETs, whose
// `response-content-disposition` is honoured. It is served on the stand-ins' own port
// (standins.ts), which checks every request's signature and expiry before it gets here.
// An object that is not an image is always a download (`attachment`, `nosniff`): served inline, an
// HTML or SVG file would run as a page of this origin.
// Objects live in memory, or in a folder (`npm start -- --persist`).

export const OBJECTS_PATH = '/local-s3';
/** Shown inline when asked; SVG is not among them, as it may carry script. */
const INLINE_TYPES = /^image\/(png|jpeg|gif|webp|avif|bmp)$/i;

interface Stored {
  body: Buffer;
  contentType: string;
}

export interface LocalObjects {
  endpoint: string;
  handles(path: string): boolean;
  serve(method: string, url: URL, body: Buffer, res: ServerResponse): void;
  /** Objects stored now (tests: nothing half-written). */
  keys(bucket: string): string[];
  put(bucket: string, key: string, body: Buffer, contentType?: string): void;
}

const xmlError = (res: ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
};

export function createLocalObjects(baseUrl: string, dir?: string): LocalObjects {
  const endpoint = `${baseUrl}${OBJECTS_PATH}`;
  const memory = new Map<string, Stored>();
  const fileOf = (id: string) => join(dir!, createHash('sha256').update(id).digest('hex'));

  const store = {
    get(id: string): Stored | null {
      if (!dir) return memory.get(id) ?? null;
      const f = fileOf(id);
      if (!existsSync(f)) return null;
      return { body: readFileSync(f), contentType: readFileSync(`${f}.type`, 'utf8') };
    },
    put(id: string, s: Stored) {
      if (!dir) {
        memory.set(id, s);
        return;
      }
      mkdirSync(dirname(fileOf(id)), { recursive: true });
      writeFileSync(fileOf(id), s.body);
      writeFileSync(`${fileOf(id)}.type`, s.contentType);
      memory.set(id, { body: Buffer.alloc(0), contentType: s.contentType });
    },
    delete(id: string) {
      memory.delete(id);
      if (dir) {
        rmSync(fileOf(id), { force: true });
        rmSync(`${fileOf(id)}.type`, { force: true });
      }
    },
  };

  return {
    endpoint,
    handles: (path) => path.startsWith(`${OBJECTS_PATH}/`),
    keys: (bucket) =>
      [...memory.keys()].filter((k) => k.startsWith(`${bucket}/`)).map((k) => k.slice(bucket.length + 1)),
    put: (bucket, key, body, contentType = 'application/octet-stream') =>
      store.put(`${bucket}/${key}`, { body, contentType }),
    serve(method, url, body, res) {
      const rest = url.pathname.slice(OBJECTS_PATH.length + 1);
      const slash = rest.indexOf('/');
      if (slash < 1) return xmlError(res, 400, 'InvalidRequest', 'path-style requests only: /<bucket>/<key>');
      const bucket = decodeURIComponent(rest.slice(0, slash));
      const key = rest
        .slice(slash + 1)
        .split('/')
        .map(decodeURIComponent)
        .join('/');
      const id = `${bucket}/${key}`;
      if (method === 'PUT') {
        store.put(id, { body, contentType: String(res.req.headers['content-type'] ?? 'application/octet-stream') });
        res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        return void res.end();
      }
      if (method === 'DELETE') {
        store.delete(id);
        res.writeHead(204);
        return void res.end();
      }
      if (method !== 'GET' && method !== 'HEAD')
        return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      const found = store.get(id);
      if (!found) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      const asked = url.searchParams.get('response-content-disposition') ?? '';
      const disposition = INLINE_TYPES.test(found.contentType.split(';')[0]!.trim())
        ? asked
        : /^\s*attachment\b/i.test(asked)
          ? asked
          : asked.replace(/^\s*inline\b/i, 'attachment') || 'attachment';
      res.writeHead(200, {
        'content-type': found.contentType,
        'content-length': String(found.body.length),
        etag: `"${createHash('md5').update(found.body).digest('hex')}"`,
        'x-content-type-options': 'nosniff',
        ...(disposition ? { 'content-disposition': disposition } : {}),
      });
      res.end(method === 'HEAD' ? undefined : found.body);
    },
  };
}
