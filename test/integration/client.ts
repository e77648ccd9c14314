import { expect, inject } from 'vitest';
import { eventually } from '../support/eventually.ts';

// A small HTTP client for the integration tests: everything goes through the local runtime's server.

export const baseUrl = () => inject('baseUrl');

/** What to do with a 503 (UNAVAILABLE, with Retry-After). */
export interface Served {
  /**
   * Send it again after its Retry-After, five attempts at most. Only for set-up steps that write a lot
   * at once (onboarding stores the starter content): on a loaded machine DynamoDB Local can stall for
   * seconds under them (CI's clean run once saw over 15 s) and the service answers 503 as it should.
   * Each resend is logged.
   */
  resend503?: boolean;
}

/**
 * fetch, except that a 503 fails the test at once with its body, unless `resend503` asks for it to be
 * sent again (and then a 503 that lasts fails it the same way). A test about outages uses its own
 * client and reads its 503s itself.
 */
export async function fetchServed(
  url: string,
  init: RequestInit,
  { resend503 = false }: Served = {},
): Promise<Response> {
  const what = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, init);
    if (res.status !== 503) return res;
    const body = await res.text();
    if (!resend503 || attempt === 5)
      throw new Error(`503 on ${what}${resend503 ? ` after ${attempt} attempts` : ''}: ${body}`);
    const wait = Number(res.headers.get('retry-after') ?? 1);
    console.warn(`503 on ${what}: sent again in ${wait} s`);
    await new Promise((done) => setTimeout(done, wait * 1000));
  }
}

/**
 * Onboards `token`'s user on the runtime at `base` as a test's set-up: the one step sent again on a
 * 503. A stall can answer 503 after the write went through; the resend then meets 409
 * ALREADY_ONBOARDED (the user is always new), and the tenant is read back with a new widget key,
 * as the first answer and its key were lost.
 */
export async function onboard(base: string, token: string, tenantName: string) {
  const call = async (method: string, path: string, body?: unknown, served: Served = {}) => {
    const res = await fetchServed(
      `${base}/api/v1/admin${path}`,
      {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      served,
    );
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const r = await call('POST', '/auth/onboard', { tenantName }, { resend503: true });
  if (r.status === 201) return { tenantId: r.body.tenant.id as string, widgetKey: r.body.widgetKey as string };
  if (r.status !== 409 || r.body?.code !== 'ALREADY_ONBOARDED') throw new Error(`onboard: ${r.status} ${r.text}`);
  console.warn(`onboarding of ${tenantName} went through before its 503: its widget key is issued again`);
  const [settings, key] = [await call('GET', '/settings'), await call('POST', '/settings/widget-key')];
  if (settings.status !== 200 || key.status !== 201) throw new Error(`read back: ${settings.text} ${key.text}`);
  return { tenantId: settings.body.tenant.id as string, widgetKey: key.body.widgetKey as string };
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function request<T = any>(
  method: string,
  path: string,
  opts: {
    token?: string;
    widgetKey?: string;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
  } & Served = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.widgetKey) headers['x-widget-key'] = opts.widgetKey;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetchServed(
    baseUrl() + path,
    { method, headers, ...(body !== undefined ? { body } : {}) },
    { resend503: opts.resend503 ?? false },
  );
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const admin = (path: string) => `/api/v1/admin${path}`;
export const chat = (path: string) => `/api/v1/chat${path}`;

let n = 0;
/** A fresh user id, unique across the run. */
export const newSub = (label = 'user') => `${label}-${process.pid}-${Date.now().toString(36)}-${n++}`;

export async function tokenFor(sub: string, email?: string | null, claims?: Record<string, unknown>): Promise<string> {
  const r = await request('POST', '/local-idp/token', {
    body: { sub, ...(email ? { email } : {}), ...(claims ? { claims } : {}) },
  });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
  return r.body.accessToken as string;
}

export interface TestTenant {
  tenantId: string;
  widgetKey: string;
  ownerToken: string;
  ownerSub: string;
  ownerEmail: string;
}

/** Onboards a new tenant through the API, with its owner's token and widget key. */
export async function newTenant(name = 'Test Shop'): Promise<TestTenant> {
  const ownerSub = newSub('owner');
  const ownerEmail = `${ownerSub}@example.com`;
  const ownerToken = await tokenFor(ownerSub, ownerEmail);
  return { ...(await onboard(baseUrl(), ownerToken, name)), ownerToken, ownerSub, ownerEmail };
}

export const send = (
  t: { widgetKey: string },
  message: string,
  conversationId?: string,
  headers?: Record<string, string>,
) =>
  request('POST', chat('/message'), {
    widgetKey: t.widgetKey,
    body: { message, ...(conversationId ? { conversationId } : {}) },
    ...(headers ? { headers } : {}),
  });

export function expectProblem(r: Res, status: number, code: string) {
  if (r.status !== status || r.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text}`);
  }
  if (!r.headers.get('content-type')?.startsWith('application/problem+json'))
    throw new Error(`not a problem document: ${r.headers.get('content-type')}`);
  if (r.body.requestId !== r.headers.get('x-request-id')) throw new Error('requestId does not match x-request-id');
}

export interface TestMember {
  token: string;
  sub: string;
  email: string;
  id: string;
}

/** A user of `t` with `role`: invited by the owner, then joined through GET /auth/me. */
export async function memberToken(t: TestTenant, role: 'viewer' | 'agent' | 'admin' | 'owner'): Promise<TestMember> {
  const sub = newSub(role);
  const email = `${sub}@example.com`;
  const inv = await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role } });
  if (inv.status !== 201) throw new Error(`invite: ${inv.status} ${inv.text}`);
  const token = await tokenFor(sub, email);
  const me = await request('GET', admin('/auth/me'), { token });
  if (me.status !== 200 || me.body.role !== role) throw new Error(`join: ${me.status} ${me.text}`);
  return { token, sub, email, id: sub };
}

/** A conversation escalated through the chat API: its id and its new ticket's id. */
export async function newTicket(
  t: { widgetKey: string },
  reason = 'needs a person',
): Promise<{ conversationId: string; ticketId: string }> {
  const m = await send(t, 'hello');
  if (m.status !== 200) throw new Error(`message: ${m.status} ${m.text}`);
  const conversationId = m.body.conversationId as string;
  const e = await request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId, reason } });
  if (e.status !== 200) throw new Error(`escalate: ${e.status} ${e.text}`);
  return { conversationId, ticketId: e.body.ticketId as string };
}

/** Merges `config` into the tenant's settings as its owner (docs/API.md, Settings); throws unless 200. */
export async function putConfig(t: TestTenant, config: unknown) {
  const r = await request('PUT', admin('/settings'), { token: t.ownerToken, body: { config } });
  if (r.status !== 200) throw new Error(`settings: ${r.status} ${r.text}`);
}

/** Waits until the tenant's articles and intents have their sentence vectors (the indexer runs after each write). */
export const untilIndexed = (t: TestTenant, timeout = 60_000) =>
  eventually(
    async () => {
      const [a, i] = await Promise.all([
        request('GET', admin('/articles?limit=100'), { token: t.ownerToken }),
        request('GET', admin('/intents'), { token: t.ownerToken }),
      ]);
      const items = [...(a.body.items ?? []), ...(i.body.items ?? [])] as Array<{ id: string; indexing?: boolean }>;
      expect(
        items.filter((x) => x.indexing).map((x) => x.id),
        'still indexing',
      ).toEqual([]);
    },
    { timeout },
  );
