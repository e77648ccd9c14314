import { describe, expect, it } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';
import { buildOpenApi } from '#shared/edge/openapi.ts';
import { request } from './client.ts';

describe('GET /api/v1/openapi.json', () => {
  it('serves the OpenAPI document without authentication', async () => {
    const r = await request('GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.body.openapi).toMatch(/^3\.1\./);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
    for (const route of routes)
      expect(r.body.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
  });

  it('answers the same document again (built once per container)', async () => {
    const [a, b] = await Promise.all([request('GET', '/api/v1/openapi.json'), request('GET', '/api/v1/openapi.json')]);
    expect(a.text).toBe(b.text);
  });
});
