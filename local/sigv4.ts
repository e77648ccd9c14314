import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

// The stand-ins' door (local/standins.ts): every request must carry an AWS Signature Version 4
// made with the runtime's credentials, as S3, SQS and the WebSocket API's management endpoint
// (IAM auth, service `execute-api`) demand, in the Authorization header or as a presigned query.
// The signature is computed again by the SDK's own signer from what was received and compared;
// nothing here signs by hand.

/** The credentials the runtime's functions sign with: the secret is new at every start, so no page can know it. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}
export const newLocalCredentials = (): LocalCredentials => ({
  accessKeyId: 'local',
  secretAccessKey: randomBytes(24).toString('base64url'),
});

/** How far a header-signed request's X-Amz-Date may be from now (S3's and SQS's 15 minutes). */
const SKEW_MS = 15 * 60_000;
/** A presigned URL lives at most a week (SigV4's limit). */
const MAX_EXPIRES = 7 * 24 * 3600;

export interface Received {
  method: string;
  /** Path and query as sent (still percent-encoded). */
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** `20261127T033000Z` as a Date. */
const amzDate = (s: string) => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
};

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The parameters that presigning adds itself: the rest of the query is signed as received. */
const PRESIGN_PARAMS = new Set([
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-signedheaders',
  'x-amz-signature',
  'x-amz-security-token',
]);

export type SignedService = 's3' | 'sqs' | 'execute-api';

/**
 * Null when the request is signed with `credentials` for `service` and still in time, else why not
 * (for the refusal's message). S3 is signed over the path as sent; SQS and execute-api over
 * the path escaped once more, as the SDK does for each.
 */
export async function signatureProblem(
  r: Received,
  credentials: LocalCredentials,
  service: SignedService,
  now = Date.now(),
): Promise<string | null> {
  const q = r.url.searchParams;
  const presigned = q.has('X-Amz-Signature');
  const auth = String(r.headers.authorization ?? '');
  let credential: string;
  let signedHeaders: string[];
  let signature: string;
  let date: Date | null;
  let expires = 0;
  if (presigned) {
    if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
      return 'the presigned query names no AWS4-HMAC-SHA256 signature';
    credential = q.get('X-Amz-Credential') ?? '';
    signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
    signature = q.get('X-Amz-Signature') ?? '';
    date = amzDate(q.get('X-Amz-Date') ?? '');
    expires = Number(q.get('X-Amz-Expires'));
    if (!date || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES)
      return 'the presigned query is incomplete';
    if (now > date.getTime() + expires * 1000) return 'Request has expired';
  } else {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
    if (!m) return 'the request is not signed (no AWS4-HMAC-SHA256 Authorization header)';
    credential = m[1]!;
    signedHeaders = m[2]!.split(';');
    signature = m[3]!;
    date = amzDate(String(r.headers['x-amz-date'] ?? ''));
    if (!date) return 'the signed request has no X-Amz-Date';
    if (Math.abs(now - date.getTime()) > SKEW_MS) return "the signed request's time is too far from now";
  }
  const [accessKeyId, day, region, scopeService, terminator] = credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) return "the access key is not the runtime's";
  if (
    !region ||
    scopeService !== service ||
    terminator !== 'aws4_request' ||
    day !== date.toISOString().slice(0, 10).replaceAll('-', '')
  ) {
    return 'the credential scope does not match the request';
  }
  if (!signedHeaders.includes('host')) return 'the host header is not signed';
  // A signed body hash must be the body's (the SDK signs S3 bodies by this header).
  const bodyHash = r.headers['x-amz-content-sha256'];
  if (!presigned && typeof bodyHash === 'string' && bodyHash !== 'UNSIGNED-PAYLOAD') {
    const actual = Buffer.from(await digest(r.body)).toString('hex');
    if (!same(actual, bodyHash)) return 'the body is not the one signed';
  }

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const v = r.headers[name];
    if (v === undefined) return `the signed header ${name} is missing`;
    headers[name] = Array.isArray(v) ? v.join(',') : v;
  }
  if (presigned && service === 's3') headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of q) {
    if (PRESIGN_PARAMS.has(k.toLowerCase())) continue;
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  const signer = new SignatureV4({
    credentials,
    region,
    service,
    sha256: Sha256,
    uriEscapePath: service !== 's3',
    applyChecksum: service !== 's3',
  });
  const request = {
    method: r.method,
    protocol: 'http:',
    hostname: r.url.hostname,
    path: r.url.pathname,
    query,
    headers,
    ...(presigned ? {} : { body: r.body }),
  };
  const unsignable = new Set(Object.keys(headers).filter((h) => !signedHeaders.includes(h)));
  const expected = presigned
    ? (
        await signer.presign(request, {
          signingDate: date,
          expiresIn: expires,
          unsignableHeaders: unsignable,
          unhoistableHeaders: new Set(['x-amz-content-sha256']),
        })
      ).query?.['X-Amz-Signature']
    : /Signature=([0-9a-f]{64})/.exec(
        String(
          (await signer.sign(request, { signingDate: date, unsignableHeaders: unsignable })).headers.authorization,
        ),
      )?.[1];
  return typeof expected === 'string' && same(expected, signature)
    ? null
    : 'The request signature we calculated does not match the signature you provided';
}

async function digest(body: Buffer) {
  const h = new Sha256();
  h.update(body);
  return h.digest();
}
