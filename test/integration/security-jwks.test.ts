import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';

// A flood of tokens with unknown `kid`s must not make the authorizer fetch the JWKS per token
// (that would let anyone turn the API into a request amplifier against the issuer). Own runtime,
// so that the fetch counter belongs to this test alone.

let rt: LocalRuntime;
beforeAll(async () => {
  rt = await startLocalRuntime({ tableName: 'sec-jwks' });
});
afterAll(async () => {
  await rt?.stop();
});

describe('JWKS fetches under a flood of unknown kids', () => {
  it('200 tokens with unknown kids: all 401, the JWKS fetched at most twice', async () => {
    const before = rt.jwksFetches();
    const { privateKey } = await generateKeyPair('RS256');
    const t = Math.floor(Date.now() / 1000);
    const tokens = await Promise.all(
      Array.from({ length: 200 }, () =>
        new SignJWT({
          iss: rt.idp.issuer,
          sub: 'flood',
          client_id: rt.idp.clientId,
          token_use: 'access',
          iat: t,
          exp: t + 600,
        })
          .setProtectedHeader({ alg: 'RS256', kid: randomUUID(), typ: 'JWT' })
          .sign(privateKey),
      ),
    );
    const statuses: number[] = [];
    for (let i = 0; i < tokens.length; i += 20) {
      const batch = await Promise.all(
        tokens.slice(i, i + 20).map(async (tok) => {
          const r = await fetch(`${rt.url}/api/v1/admin/auth/me`, { headers: { authorization: `Bearer ${tok}` } });
          const text = await r.text();
          return r.status === 401 && text === '{"message":"Unauthorized"}' ? 401 : r.status;
        }),
      );
      statuses.push(...batch);
    }
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(rt.jwksFetches() - before).toBeLessThanOrEqual(2);
    // A real token still works after the flood.
    const good = await rt.idp.token({ sub: 'after-flood' });
    expect(
      (await fetch(`${rt.url}/api/v1/admin/auth/me`, { headers: { authorization: `Bearer ${good}` } })).status,
    ).toBe(200);
  }, 60_000);
});
