import createClient from 'openapi-fetch';
import type { paths } from './schema';
import { toApiError } from './problem.ts';

// The admin API, typed from the project's OpenAPI document (schema.d.ts is generated from it).

export type Api = ReturnType<typeof createApi>;
export type Paths = paths;

/** The 200 (or 201, or 202) JSON body of an operation, e.g. `Ok<'/api/v1/admin/stats', 'get'>`. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : R extends { 202: { content: { 'application/json': infer B } } }
        ? B
        : never
  : never;
/** The JSON request body of an operation. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters of an operation. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

export interface ApiOptions {
  baseUrl: string;
  token: () => string | null;
  fetch?: typeof fetch;
}

// Every POST goes with an Idempotency-Key: one per user action. The same request (method, URL and
// body) sent again before one of them succeeded is the same action (a double click, a retry after
// an error or a lost answer) and reuses the key, so the service makes one thing and answers every
// copy with the first response (the one-time widget key or webhook secret included). Once one
// succeeds, the same form sent again is a new action with a new key.
const NOT_KEYED = new Set(['/api/v1/admin/nlu/parse', '/api/v1/admin/live/tickets']);
/** A copy that arrives while the first is still running is answered 409 IDEMPOTENCY_IN_PROGRESS: it asks again. */
const IN_PROGRESS_WAITS_MS = [150, 300, 600, 1000, 1500, 2000, 3000];

/**
 * The keys of actions not yet answered with a success, by a hash of the request (never the body
 * itself: it may hold a secret), kept in sessionStorage so that a reload of the tab after a lost
 * answer still replays it (the onboarding's one-time widget key).
 */
function pendingKeys(store: Storage | null) {
  const PREFIX = 'support-dashboard:idem:';
  const memory = new Map<string, string>();
  const read = (k: string) => {
    try {
      return store?.getItem(PREFIX + k) ?? memory.get(k);
    } catch {
      return memory.get(k);
    }
  };
  return {
    get: read,
    set(k: string, v: string) {
      memory.set(k, v);
      try {
        store?.setItem(PREFIX + k, v);
      } catch {
        /* memory only */
      }
    },
    delete(k: string) {
      memory.delete(k);
      try {
        store?.removeItem(PREFIX + k);
      } catch {
        /* memory only */
      }
    },
  };
}

const sha256 = async (text: string) => {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
};

export function idempotentFetch(
  inner: typeof fetch = globalThis.fetch.bind(globalThis),
  store: Storage | null = globalThis.sessionStorage ?? null,
): typeof fetch {
  const pending = pendingKeys(store);
  // A copy sent while the same action is on its way (a double click) shares its answer: one request.
  const inFlight = new Map<string, Promise<Response>>();
  const send = async (request: Request, action: string): Promise<Response> => {
    let key = pending.get(action);
    if (!key) {
      key = crypto.randomUUID();
      pending.set(action, key);
    }
    request.headers.set('idempotency-key', key);
    for (let attempt = 0; ; attempt++) {
      const res = await inner(request.clone());
      if (res.status === 409 && attempt < IN_PROGRESS_WAITS_MS.length) {
        const code = await res
          .clone()
          .json()
          .then(
            (b: { code?: string }) => b.code,
            () => undefined,
          );
        if (code === 'IDEMPOTENCY_IN_PROGRESS') {
          await new Promise((r) => setTimeout(r, IN_PROGRESS_WAITS_MS[attempt]));
          continue;
        }
      }
      // Answered: a success ends the action; a refusal (4xx) too, since the same request would be
      // refused again (the service keeps only successes, so the next try runs afresh either way).
      if (res.status < 500 && pending.get(action) === key) pending.delete(action);
      return res;
    }
  };
  return async (input, init) => {
    const request = new Request(input, init);
    if (
      request.method !== 'POST' ||
      NOT_KEYED.has(new URL(request.url).pathname) ||
      request.headers.has('idempotency-key')
    )
      return inner(request);
    const action = await sha256(`${request.url}\n${await request.clone().text()}`);
    let answer = inFlight.get(action);
    if (!answer) {
      answer = send(request, action);
      inFlight.set(action, answer);
      const forget = () => {
        inFlight.delete(action);
      };
      answer.then(forget, forget);
    }
    return (await answer).clone();
  };
}

export function createApi({ baseUrl, token, fetch: inner }: ApiOptions) {
  const client = createClient<paths>({ baseUrl, fetch: idempotentFetch(inner) });
  client.use({
    onRequest({ request }) {
      const t = token();
      if (t) request.headers.set('authorization', `Bearer ${t}`);
      return request;
    },
  });
  return client;
}

/** The data of an openapi-fetch call, or its problem document thrown as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw toApiError(response, error);
  return data as T;
}
