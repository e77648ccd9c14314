import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { routes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { admin, baseUrl, newTenant, request, type TestTenant } from './client.ts';
import { handlerExists, noteMissing } from './security/routes.ts';
import { hostileBody, hostilePathValue, hostileQuery, POLLUTION } from './security/hostile.ts';

// Property-based hostile input at every route: wrong types, deep nesting, huge numbers, __proto__
// and constructor keys, control characters, lone surrogates, oversized strings. Every answer is a
// 2xx or a 4xx problem document (or the gateway's own 401/404), never a 5xx, never a crash.

const RUNS = 30;

async function rawRequest(
  method: string,
  path: string,
  t: TestTenant,
  route: Route,
  body: string | undefined,
  contentType: string,
) {
  const headers: Record<string, string> = {};
  if (route.auth === 'jwt') headers.authorization = `Bearer ${t.ownerToken}`;
  if (route.auth === 'widget') headers['x-widget-key'] = t.widgetKey;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(baseUrl() + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function checkAnswer(r: { status: number; headers: Headers; text: string }, what: string) {
  const gateway =
    (r.status === 401 && r.text === '{"message":"Unauthorized"}') ||
    (r.status === 404 && r.text === '{"message":"Not Found"}');
  if (r.status >= 500) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 500)}`);
  if (r.text.includes(POLLUTION))
    throw new Error(`${what}: the answer reflects the pollution payload: ${r.text.slice(0, 300)}`);
  if (r.status >= 400 && !gateway) {
    if (!r.headers.get('content-type')?.startsWith('application/problem+json'))
      throw new Error(`${what}: ${r.status} is not a problem document`);
    const body = JSON.parse(r.text) as { status: number; code: string; requestId: string; detail: string };
    if (body.status !== r.status || !/^[A-Z_]+$/.test(body.code) || body.requestId !== r.headers.get('x-request-id'))
      throw new Error(`${what}: bad problem ${r.text}`);
    if (/\n\s+at |node_modules|\.ts:\d+/.test(r.text)) throw new Error(`${what}: stack trace in the answer`);
  }
  if (r.status < 200 || (r.status >= 300 && r.status < 400)) throw new Error(`${what}: unexpected ${r.status}`);
}

describe.concurrent('hostile input at every route', () => {
  for (const route of routes) {
    it(`${route.method} ${route.path}`, async (ctx) => {
      if (route.auth === 'none' && !handlerExists(route.handler)) {
        noteMissing('fuzz', route);
        return ctx.skip();
      }
      if (!handlerExists(route.handler)) {
        noteMissing('fuzz', route);
        return ctx.skip();
      }
      const t = await newTenant('Fuzz');
      const takesBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
      await fc.assert(
        fc.asyncProperty(
          hostilePathValue,
          hostileQuery,
          hostileBody,
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'application/x-www-form-urlencoded',
          ),
          fc.boolean(),
          async (id, query, body, contentType, sendBody) => {
            const path = route.path.replace('{id}', id) + (query ? `?${query}` : '');
            const r = await rawRequest(
              route.method,
              path,
              t,
              route,
              takesBody || (sendBody && route.method === 'DELETE') ? body : undefined,
              contentType,
            );
            checkAnswer(r, `${route.method} ${path.slice(0, 200)} body=${body.slice(0, 200)}`);
          },
        ),
        {
          numRuns: RUNS,
          reporter: (d) => {
            if (d.failed) throw new Error(`${String(d.errorInstance).slice(0, 1500)}\n(seed ${d.seed})`);
          },
        },
      );
      // The tenant still works afterwards and no answer shows pollution.
      const me = await request('GET', admin('/auth/me'), { token: t.ownerToken });
      expect(me.status).toBe(200);
      expect(me.text).not.toContain(POLLUTION);
    }, 60_000);
  }
});
