import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { afterAll, beforeAll, inject } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../../local/runtime.ts';
import type { DomainEvent } from '#shared/domain/events-out/deliveries.ts';
import { fetchServed, onboard } from '../client.ts';

// Webhook tests run the local runtime in their own process (on the run's DynamoDB Local), so that
// they can call `fanOut` as the dispatcher does, move the delivery clock and read the queue's log.
// Receivers are real HTTP servers on loopback, started by the tests.

/** 10 h of retry delay become 0.72 s: the whole schedule (about 27.6 h) runs in about 2 s. */
export const TIME_SCALE = 2e-5;

export async function startRuntime(): Promise<LocalRuntime> {
  process.env.DELIVERY_TIMEOUT_MS = '1000';
  return startLocalRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `webhooks-${randomUUID().slice(0, 8)}`,
    allowLoopbackWebhooks: true,
    deliveryTimeScale: TIME_SCALE,
    indexer: false,
  });
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  at: number;
}
/** What the receiver does with the n-th request (0-based): answer a status, or never answer. */
export type Behaviour = (n: number, r: Received) => number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  behave(b: Behaviour): void;
  /** Resolves once `n` requests arrived (checked as they come). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => 200, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let behave = behaviour;
  let waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        at: Date.now(),
      };
      const n = received.push(r) - 1;
      const what = behave(n, r);
      if (what === 'hang') hanging.push(res);
      else {
        res.writeHead(what, { 'content-type': 'text/plain' });
        res.end(what >= 400 ? 'receiver says no' : 'ok');
      }
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const p = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${p}/hook`,
    port: p,
    received,
    behave: (b) => {
      behave = b;
    },
    waitFor: (n, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= n) {
            waiters = waiters.filter((w) => w !== check);
            clearTimeout(t);
            resolve(received.slice());
          }
        };
        const t = setTimeout(() => {
          waiters = waiters.filter((w) => w !== check);
          reject(new Error(`receiver got ${received.length} of ${n} requests`));
        }, timeoutMs);
        waiters.push(check);
        check();
      }),
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Api {
  call<T = any>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; text: string }>;
  tenant(name?: string): Promise<{ tenantId: string; token: string; widgetKey: string; sub: string }>;
  member(t: { token: string }, role: 'viewer' | 'agent' | 'admin'): Promise<string>;
}

/** A widget's POST to the chat API of `rt`. */
export async function chatOn(
  rt: LocalRuntime,
  widgetKey: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const r = await fetchServed(`${rt.url}/api/v1/chat${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-widget-key': widgetKey, ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

export function api(rt: LocalRuntime): Api {
  const call: Api['call'] = async (method, path, token, body, headers = {}) => {
    const res = await fetchServed(`${rt.url}/api/v1/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as any, text };
  };
  return {
    call,
    async tenant(name = 'Hook Shop') {
      const sub = `owner-${randomUUID()}`;
      const token = await rt.idp.token({ sub, email: `${sub}@example.com` });
      return { ...(await onboard(rt.url, token, name)), token, sub };
    },
    async member(t, role) {
      const sub = `${role}-${randomUUID()}`;
      const email = `${sub}@example.com`;
      const inv = await call('POST', '/members', t.token, { email, role });
      if (inv.status !== 201) throw new Error(`invite: ${inv.status} ${inv.text}`);
      const token = await rt.idp.token({ sub, email });
      const me = await call('GET', '/auth/me', token);
      if (me.body?.role !== role) throw new Error(`join: ${me.status} ${me.text}`);
      return token;
    },
  };
}

const ulid = monotonicFactory();
/** An event as the dispatcher hands it over (ids in creation order even within a millisecond). */
export const event = (
  tenantId: string,
  type: DomainEvent['type'],
  data: Record<string, unknown> = {},
): DomainEvent => ({ id: `evt_${ulid()}`, type, timestamp: new Date().toISOString(), tenantId, data });

/**
 * A test file's runtime, API client and receivers: the runtime starts before the file's tests, and
 * the runtime and every receiver started through `receiver` stop after them.
 */
export function webhookFile() {
  const f = {} as { rt: LocalRuntime; a: Api };
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    f.rt = await startRuntime();
    f.a = api(f.rt);
  }, 60_000);
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await f.rt?.stop();
  });
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  /** A webhook integration posting to `url`: its id and signing secret (the one given, or the one generated). */
  const hook = async (
    t: { token: string },
    url: string,
    extra: { events?: string[]; secret?: string; name?: string } = {},
  ) => {
    const r = await f.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: extra.name ?? 'Hook',
      config: { url, ...(extra.events ? { events: extra.events } : {}) },
      ...(extra.secret ? { credentials: { secret: extra.secret } } : {}),
    });
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    return { id: r.body.id as string, secret: (extra.secret ?? r.body.credentials.secret) as string };
  };
  return Object.assign(f, { receiver, hook });
}
