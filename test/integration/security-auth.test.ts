import { describe, expect, it, beforeAll } from 'vitest';
import { exportSPKI, generateKeyPair, importJWK, SignJWT, base64url } from 'jose';
import { randomUUID } from 'node:crypto';
import {
  admin,
  baseUrl,
  chat,
  expectProblem,
  newSub,
  newTenant,
  request,
  tokenFor,
  type TestTenant,
} from './client.ts';
import { concrete, jwtRoutes, widgetRoutes, handlerExists, noteMissing } from './security/routes.ts';
import { eventually } from '../support/eventually.ts';

// OWASP API2: every jwt route refuses a bad token exactly as API Gateway's JWT authorizer does,
// and every chat route refuses a bad widget key.

const now = () => Math.floor(Date.now() / 1000);
const b64 = (o: unknown) => base64url.encode(JSON.stringify(o));

let jwks: { keys: Array<Record<string, string>> };
let issuer: string;
const bad: Array<[string, string | undefined]> = [];

beforeAll(async () => {
  jwks = (await (await fetch(`${baseUrl()}/local-idp/.well-known/jwks.json`)).json()) as typeof jwks;
  issuer = (
    (await (await fetch(`${baseUrl()}/local-idp/.well-known/openid-configuration`)).json()) as { issuer: string }
  ).issuer;
  const kid = jwks.keys[0]!.kid!;
  const sub = newSub('attacker');
  const valid = await tokenFor(sub, `${sub}@example.com`);
  const [h, p, s] = valid.split('.') as [string, string, string];
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(p))) as Record<string, unknown>;

  const other = await generateKeyPair('RS256', { extractable: true });
  const otherSigned = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .sign(other.privateKey);
  const pubJwk = JSON.stringify(jwks.keys[0]);
  const pem = await exportSPKI((await importJWK(jwks.keys[0]!, 'RS256')) as Parameters<typeof exportSPKI>[0]);
  const hs = (secret: string) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' }).sign(new TextEncoder().encode(secret));

  bad.push(
    ['missing token', undefined],
    ['garbage', 'not-a-jwt'],
    ['garbage with dots', 'aaa.bbb.ccc'],
    ['alg none', `${b64({ alg: 'none', kid, typ: 'JWT' })}.${p}.`],
    ['alg none with the original signature', `${b64({ alg: 'none', kid, typ: 'JWT' })}.${p}.${s}`],
    ['signed by another key with the known kid', otherSigned],
    ['HS256 with the public JWK as secret', await hs(pubJwk)],
    ['HS256 with the public PEM as secret', await hs(pem)],
    ['expired', await tokenFor(sub, null, { iat: now() - 7200, exp: now() - 3600 })],
    ['no exp', await tokenFor(sub, null, { exp: null })],
    ['nbf in the future', await tokenFor(sub, null, { nbf: now() + 3600 })],
    ['wrong issuer', await tokenFor(sub, null, { iss: 'https://evil.example.com/local-idp' })],
    ['issuer with a trailing slash', await tokenFor(sub, null, { iss: `${issuer}/` })],
    ['wrong client_id', await tokenFor(sub, null, { client_id: 'someone-else' })],
    ['wrong aud and no client_id', await tokenFor(sub, null, { client_id: null, aud: 'someone-else' })],
    ['tampered payload', `${h}.${b64({ ...claims, sub: 'victim' })}.${s}`],
    ['tampered header kid', `${b64({ alg: 'RS256', kid: randomUUID(), typ: 'JWT' })}.${p}.${s}`],
    ['signature stripped', `${h}.${p}.`],
    ['Basic scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
  );
  // The valid token itself passes (so the refusals below are about the token, not the route).
  expect((await request('GET', admin('/auth/me'), { token: valid })).status).toBe(200);
});

const authHeader = (t: string | undefined): Record<string, string> =>
  t === undefined ? {} : { authorization: t.startsWith('Basic ') ? t : `Bearer ${t}` };

describe('jwt routes refuse bad tokens with the gateway 401', () => {
  for (const r of jwtRoutes) {
    it(`${r.method} ${r.path}`, async () => {
      const path = concrete(r, randomUUID());
      const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : {};
      for (const [name, token] of bad) {
        const res = await request(r.method, path, { headers: authHeader(token), ...(body ? { body } : {}) });
        expect.soft(res.status, name).toBe(401);
        expect.soft(res.text, name).toBe('{"message":"Unauthorized"}');
        expect.soft(res.headers.get('x-request-id'), name).toBeNull();
      }
    });
  }

  it('a valid token without a tenant reaches the function (control)', async () => {
    const token = await tokenFor(newSub('lonely'));
    const r = await request('GET', admin('/auth/me'), { token });
    expect(r.status).toBe(200);
    expect(r.body.tenant).toBeNull();
  });
});

describe('chat routes refuse bad widget keys', () => {
  let t: TestTenant;
  let conv: string;
  beforeAll(async () => {
    t = await newTenant();
    conv = (await request('POST', chat('/message'), { widgetKey: t.widgetKey, body: { message: 'hello' } })).body
      .conversationId;
  });

  const keysToTry = () =>
    [
      ['missing', undefined],
      ['empty', ''],
      ['unknown', `wk_${'A'.repeat(40)}`],
      ['malformed', 'not-a-key'],
      ['malformed with a newline', `${t.widgetKey.slice(0, 10)}\t`],
      ['the key with one character changed', t.widgetKey.slice(0, -1) + (t.widgetKey.endsWith('A') ? 'B' : 'A')],
      ['the key with a suffix', `${t.widgetKey}x`],
      [
        'the key in lower case',
        t.widgetKey.toLowerCase() === t.widgetKey ? `${t.widgetKey}0` : t.widgetKey.toLowerCase(),
      ],
      ['a very long key', `wk_${'a'.repeat(5000)}`],
    ] as Array<[string, string | undefined]>;

  for (const r of widgetRoutes) {
    it(`${r.method} ${r.path}`, async () => {
      const path = concrete(r, conv);
      const body =
        r.method === 'POST'
          ? r.path.endsWith('/escalate')
            ? { conversationId: conv, reason: 'x' }
            : { message: 'hi', conversationId: conv }
          : undefined;
      for (const [name, key] of keysToTry()) {
        const res = await request(r.method, path, {
          headers: key === undefined ? {} : { 'x-widget-key': key },
          ...(body ? { body } : {}),
        });
        expect.soft(() => expectProblem(res, 401, 'UNAUTHORIZED'), name).not.toThrow();
        expect.soft(res.text, name).not.toContain(t.widgetKey);
      }
      // Nothing was written by the refused requests.
      const after = await request('GET', chat(`/conversations/${conv}`), { widgetKey: t.widgetKey });
      expect(after.body.messages).toHaveLength(2);
      expect(after.body.conversation.status).toBe('active');
    });
  }

  it('a rotated-out widget key stops working within the window', async (ctx) => {
    if (!handlerExists('admin/rotate-widget-key')) {
      noteMissing('widget key rotation', {
        method: 'POST',
        path: '/api/v1/admin/settings/widget-key',
        handler: 'admin/rotate-widget-key',
      });
      return ctx.skip();
    }
    const t2 = await newTenant();
    expect(
      (await request('POST', chat('/message'), { widgetKey: t2.widgetKey, body: { message: 'hello' } })).status,
    ).toBe(200);
    const rot = await request('POST', admin('/settings/widget-key'), { token: t2.ownerToken });
    expect(rot.status).toBe(201);
    const fresh = rot.body.widgetKey as string;
    expect(fresh).toMatch(/^wk_/);
    expect(fresh).not.toBe(t2.widgetKey);
    expect((await request('POST', chat('/message'), { widgetKey: fresh, body: { message: 'hello' } })).status).toBe(
      200,
    );
    // The old key may be cached up to 30 s in the container (docs/API.md: at most 60 s); poll, bounded.
    await eventually(
      async () =>
        expect(
          (await request('POST', chat('/message'), { widgetKey: t2.widgetKey, body: { message: 'hello' } })).status,
        ).toBe(401),
      { timeout: 35_000, interval: 1000 },
    );
  }, 45_000);
});
