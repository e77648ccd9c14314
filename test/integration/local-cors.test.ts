import { describe, expect, it } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';
import { admin, baseUrl, chat, newTenant, request } from './client.ts';

// CORS as docs/API.md (Cross-origin requests) says, answered by the local runtime as the HTTP API's CORS
// configuration answers it: preflights never reach a function, every response allows any origin.

const ORIGIN = 'https://shop.example';
const preflight = (path: string, method = 'POST') =>
  fetch(baseUrl() + path, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type, x-widget-key',
    },
  });

const expectCors = (headers: Headers, what: string) => {
  expect(headers.get('access-control-allow-origin'), what).toBe('*');
  expect(headers.get('access-control-expose-headers'), what).toBe('x-request-id, retry-after');
};

const methodsOf = (res: Response) => res.headers.get('access-control-allow-methods')!.split(/,\s*/).sort();

describe('preflight', () => {
  it('is answered by the runtime with 204, the methods of the path and the allowed headers', async () => {
    const res = await preflight(chat('/message'));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expectCors(res.headers, 'preflight');
    expect(methodsOf(res)).toEqual(['POST']);
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'content-type, authorization, x-widget-key, idempotency-key',
    );
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    // No function ran: a function's response would carry a request id.
    expect(res.headers.get('x-request-id')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lists every method of the routes at a path with parameters', async () => {
    const res = await preflight(admin('/tickets/tkt_01J0000000000000000000000A'), 'PATCH');
    const expected = routes
      .filter((r) => r.path === '/api/v1/admin/tickets/{id}')
      .map((r) => r.method)
      .sort();
    expect(expected).toContain('PATCH');
    expect(methodsOf(res)).toEqual(expected);
  });

  it('answers a path no route has with every method of the route table, and needs no origin', async () => {
    const res = await fetch(`${baseUrl()}/no/such/path`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expectCors(res.headers, 'unknown path');
    expect(methodsOf(res)).toEqual([...new Set(routes.map((r) => r.method))].sort());
  });
});

describe('every response carries the CORS headers', () => {
  it("a function's 2xx and its problem documents", async () => {
    const t = await newTenant('Cors Shop');
    const ok = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      body: { message: 'hello' },
      headers: { origin: ORIGIN },
    });
    expect(ok.status).toBe(200);
    expectCors(ok.headers, '200');
    const bad = await request('POST', chat('/message'), { widgetKey: t.widgetKey, body: { message: '' } });
    expect(bad.status).toBe(400);
    expectCors(bad.headers, '400');
    const unauth = await request('POST', chat('/message'), { widgetKey: 'wk_nope', body: { message: 'hi' } });
    expect(unauth.status).toBe(401);
    expectCors(unauth.headers, 'chat 401');
  });

  it("the gateway's own 401, 404 and 413", async () => {
    const noToken = await request('GET', admin('/tickets'));
    expect(noToken.status).toBe(401);
    expectCors(noToken.headers, 'gateway 401');
    const unknown = await request('GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Not Found' });
    expectCors(unknown.headers, 'gateway 404');
    const huge = await request('POST', chat('/message'), {
      raw: 'x'.repeat(10 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    expectCors(huge.headers, 'gateway 413');
  });

  it("the local issuer's answers too", async () => {
    const res = await fetch(`${baseUrl()}/local-idp/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expectCors(res.headers, 'issuer');
  });
});
