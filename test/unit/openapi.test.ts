import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';
import { buildOpenApi } from '#shared/edge/openapi.ts';
import { sendMessage } from '#shared/edge/routes/chat.ts';

// Captures the declaration each handler hands to the HTTP kit, to compare it with the route list by identity.
const captured = vi.hoisted(() => ({ current: '', specs: new Map<string, Record<string, unknown>>() }));
vi.mock('#shared/edge/kit.ts', async (importOriginal) => {
  const kit = await importOriginal<typeof import('#shared/edge/kit.ts')>();
  const spy = <F extends (spec: any, fn: any) => any>(f: F) =>
    ((spec: Record<string, unknown>, fn: unknown) => {
      captured.specs.set(captured.current, spec);
      return f(spec, fn);
    }) as unknown as F;
  return {
    ...kit,
    chatRoute: spy(kit.chatRoute),
    adminRoute: spy(kit.adminRoute),
    userRoute: spy(kit.userRoute),
    publicRoute: spy(kit.publicRoute),
  };
});

Object.assign(process.env, {
  TABLE_NAME: process.env.TABLE_NAME ?? 'unit',
  CURSOR_SECRET: process.env.CURSOR_SECRET ?? 'unit-secret',
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const handlerFile = (h: string) => `${ROOT}functions/${h}.ts`;
const existing = [...new Set(routes.map((r) => r.handler))].filter((h) => existsSync(handlerFile(h)));

type Doc = ReturnType<typeof buildOpenApi> & { paths: Record<string, Record<string, any>>; components: any };
const doc = buildOpenApi() as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: doc.components } as object);
const accepts = (schema: object, value: unknown) => {
  const withRefs = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object;
  return ajv.validate(withRefs, value);
};
const op = (method: string, path: string) => doc.paths[path]![method.toLowerCase()]!;
const bodySchema = (method: string, path: string) =>
  op(method, path).requestBody.content['application/json'].schema as object;

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as never);
    expect((api as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('has exactly the operations of the route table', () => {
    const inDoc = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const inTable = routes.map((r) => `${r.method} ${r.path}`);
    expect(inDoc.sort()).toEqual([...inTable].sort());
    for (const r of routes) expect(op(r.method, r.path).operationId).toBeTypeOf('string');
  });

  it('names each handler module once', () => {
    expect(new Set(routes.map((r) => r.handler)).size).toBe(routes.length);
  });

  it('secures each route by its auth kind and answers problems in the documented shape', () => {
    for (const r of routes) {
      const o = op(r.method, r.path);
      const expected = { widget: [{ widgetKey: [] }], jwt: [{ bearer: [] }], none: [] }[r.auth];
      expect(o.security, `${r.method} ${r.path}`).toEqual(expected);
      expect(o.responses['500'].content['application/problem+json'].schema.allOf[0]).toEqual({
        $ref: '#/components/schemas/Problem',
      });
      if (r.auth === 'jwt') {
        expect(o.responses['401']).toEqual({ $ref: '#/components/responses/GatewayUnauthorized' });
        expect(o['x-required-role']).toBe(r.role ?? 'any');
        expect(o.description).toContain('Role:');
      }
      if (r.auth === 'widget') expect(o.responses['401'].content['application/problem+json']).toBeDefined();
      for (const [status, res] of Object.entries<any>(o.responses)) {
        if (Number(status) >= 400 && !res.$ref)
          expect(res.content['application/problem+json'], `${r.path} ${status}`).toBeDefined();
      }
    }
    expect(doc.components.securitySchemes.widgetKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Widget-Key',
    });
    expect(doc.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('documents the Idempotency-Key header on every POST that creates or sends something, and on nothing else', () => {
    const withKey = routes.filter((r) =>
      (op(r.method, r.path).parameters ?? []).some((p: any) => p.name === 'Idempotency-Key'),
    );
    const keyed = withKey.map((r) => `${r.method} ${r.path}`);
    expect(keyed).toEqual(
      expect.arrayContaining([
        'POST /api/v1/chat/escalate',
        'POST /api/v1/chat/message',
        'POST /api/v1/chat/conversations/{id}/rating',
        'POST /api/v1/admin/auth/onboard',
        'POST /api/v1/admin/intents',
        'POST /api/v1/admin/articles',
        'POST /api/v1/admin/integrations',
        'POST /api/v1/admin/members',
        'POST /api/v1/admin/conversations/{id}/messages',
        'POST /api/v1/admin/settings/widget-key',
      ]),
    );
    expect(withKey.every((r) => r.method === 'POST')).toBe(true);
    // Asking (a parse, a live ticket) creates nothing: no key.
    expect(keyed).not.toContain('POST /api/v1/admin/nlu/parse');
    expect(keyed).not.toContain('POST /api/v1/admin/live/tickets');
    for (const r of withKey)
      expect(JSON.stringify(op(r.method, r.path).responses['409'] ?? {}), `${r.path} 409`).toContain(
        'IDEMPOTENCY_IN_PROGRESS',
      );
  });

  it('validates the same bodies as the handler schema', () => {
    const schema = bodySchema('POST', '/api/v1/chat/message');
    const zod = sendMessage.body!;
    const good = [{ message: 'hello' }, { message: 'hi', conversationId: '3b241101-e2bb-4255-8caf-4136c566a962' }];
    const bad = [
      {},
      { message: '' },
      { message: 'x'.repeat(2001) },
      { message: 'hi', extra: 1 },
      { message: 'hi', conversationId: 'not-a-uuid' },
      { message: 42 },
    ];
    for (const b of good) {
      expect(zod.safeParse(b).success).toBe(true);
      expect(accepts(schema, b)).toBe(true);
    }
    for (const b of bad) {
      expect(zod.safeParse(b).success, JSON.stringify(b)).toBe(false);
      expect(accepts(schema, b), JSON.stringify(b)).toBe(false);
    }
  });

  describe('each handler is built from the declaration the document is built from', () => {
    beforeAll(async () => {
      for (const h of existing) {
        captured.current = h;
        await import(handlerFile(h));
      }
    });
    it.each(existing)('%s', (h) => {
      const spec = captured.specs.get(h);
      expect(spec, `${h} did not build its handler with the HTTP kit`).toBeDefined();
      const route = routes.find((r) => r.handler === h)!;
      expect(spec, `${h} is built from another route's declaration`).toBe(route);
      // And the document holds that schema's JSON form.
      if (route.body) expect(op(route.method, route.path).requestBody.required).toBe(!route.bodyOptional);
      else expect(op(route.method, route.path).requestBody).toBeUndefined();
    });
  });

  it('is served by GET /api/v1/openapi.json', async () => {
    const { handler } = await import('#functions/public/openapi.ts');
    const event = {
      version: '2.0',
      routeKey: 'GET /api/v1/openapi.json',
      rawPath: '/api/v1/openapi.json',
      rawQueryString: '',
      headers: {},
      requestContext: {
        requestId: 'unit',
        routeKey: 'GET /api/v1/openapi.json',
        http: { method: 'GET', path: '/api/v1/openapi.json' },
      },
      isBase64Encoded: false,
    };
    const res = await handler(event as never, {} as never);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body!)).toEqual(JSON.parse(JSON.stringify(doc)));
  });
});
