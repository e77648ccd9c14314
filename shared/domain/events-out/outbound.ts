import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { refusedAddress } from './webhook-url.ts';
import { clock } from '#shared/core/clock.ts';

// POSTs to addresses that tenants chose (webhooks, Slack), safely: the host is resolved once, every
// address it resolves to must be public unicast (IPv4-mapped IPv6 judged as the IPv4 it carries),
// and the connection goes to the checked address (no second lookup that could rebind). No
// redirect is followed, the answer (the lookup included) must come within the timeout, and at most
// 1 KiB of it is kept.

export const RESPONSE_KEEP_BYTES = 1024;

export class RefusedDestination extends Error {}

/** Every address of `host`, each checked; throws RefusedDestination when one is not allowed. */
export async function resolveChecked(host: string, allowLoopback: boolean): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new RefusedDestination(`could not resolve ${host}`);
  }
  if (addresses.length === 0) throw new RefusedDestination(`could not resolve ${host}`);
  for (const a of addresses) {
    const why = refusedAddress(a.address, allowLoopback);
    if (why) throw new RefusedDestination(`${host} resolves to a refused address: ${why}`);
  }
  return addresses;
}

export interface PostResult {
  ok: boolean;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  /** Why it failed, for the delivery log; null on success. */
  error: string | null;
  /** The start of the response body, at most 1 KiB (or the caller's `keepBytes`). */
  body: string;
  /** True when no answer came within the timeout. */
  timedOut?: boolean;
  /** True when the answer was longer than `keepBytes` (the rest was not read). */
  overflow?: boolean;
}

const agents = {
  'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }),
  'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }),
};

export async function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowLoopback: boolean; timeoutMs: number; keepBytes?: number },
): Promise<PostResult> {
  const fail = (error: string, status: number | null = null, text = ''): PostResult => ({
    ok: false,
    status,
    error,
    body: text,
  });
  const late = (): PostResult => ({
    ...fail(`no answer within ${Math.round(opts.timeoutMs / 100) / 10} s`),
    timedOut: true,
  });
  const keep = opts.keepBytes ?? RESPONSE_KEEP_BYTES;
  // One deadline for the lookup and the request: a slow resolver must not hold a delivery past it.
  const deadline = clock.now() + opts.timeoutMs;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return fail('the URL is not valid');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[] | null;
  try {
    addresses = await beforeDeadline(resolveChecked(host, opts.allowLoopback), deadline);
  } catch (e) {
    if (e instanceof RefusedDestination) return fail(e.message);
    throw e;
  }
  if (!addresses) return late();
  // Plain http only for loopback receivers, which exist only when the local runtime allows them.
  const loopbackOnly = addresses.every((a) => ipaddr.process(a.address).range() === 'loopback');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && opts.allowLoopback && loopbackOnly))
    return fail('the URL must use https');
  if (url.username || url.password) return fail('the URL must not contain credentials');

  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  const payload = Buffer.from(body);
  const transport = url.protocol === 'https:' ? https : http;

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const done = (r: PostResult) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    let req: http.ClientRequest;
    // A receiver may close an idle kept-alive connection just as a request goes out on it (Node.js
    // servers after 5 s): that request never arrived, so it is sent once more on a new connection.
    const send = (again: boolean) => {
      req = transport.request(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...headers, 'content-length': String(payload.length) },
          agent: agents[url.protocol as 'https:' | 'http:'],
          lookup: pinned,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let kept = 0;
          const finish = () => {
            const all = Buffer.concat(chunks);
            const text = all.subarray(0, keep).toString('utf8');
            if (status >= 200 && status < 300)
              done({ ok: true, status, error: null, body: text, ...(all.length > keep ? { overflow: true } : {}) });
            else if (status >= 300 && status < 400)
              done(fail(`answered ${status}; redirects are not followed`, status, text));
            else done(fail(`answered ${status}`, status, text));
          };
          res.on('data', (c: Buffer) => {
            if (kept <= keep) {
              chunks.push(c);
              kept += c.length;
            }
            // Nothing past what is kept is read: the connection is dropped instead.
            if (kept > keep) {
              res.destroy();
              finish();
            }
          });
          res.on('end', finish);
          res.on('error', finish);
          res.on('close', finish);
        },
      );
      let answered = false;
      req.on('response', () => {
        answered = true;
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (!again && !answered && !settled && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE'))
          send(true);
        else done(fail(`request failed: ${e.code ?? e.message}`));
      });
      req.end(payload);
    };
    const timer = setTimeout(
      () => {
        req.destroy();
        done(late());
      },
      Math.max(0, deadline - clock.now()),
    );
    send(false);
  });
}

/** What `work` gives, or null when the deadline comes first (the work itself goes on unheard). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, deadline - clock.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
