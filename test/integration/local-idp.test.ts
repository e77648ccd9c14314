import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, baseUrl, newSub, request } from './client.ts';

// The local issuer's browser sign-in (docs/API.md, Running it locally): the authorization page, the code
// flow with PKCE S256, refresh tokens, id tokens and sign-out, as an OIDC client drives them.

const CLIENT_ID = 'local-dashboard';
const REDIRECT = 'http://127.0.0.1:5173/callback';

let discovery: Record<string, any>;
beforeAll(async () => {
  discovery = (await (await fetch(`${baseUrl()}/local-idp/.well-known/openid-configuration`)).json()) as Record<
    string,
    any
  >;
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function authorizeParams(challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid email',
    state: 'st-123',
    nonce: 'n-456',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
}

const form = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

/** Posts the sign-in form as the page would; the redirect back, parsed. */
async function signIn(email: string, challenge: string, extra: Record<string, string> = {}) {
  const res = await form(discovery.authorization_endpoint, {
    ...Object.fromEntries(authorizeParams(challenge, extra)),
    email,
  });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

async function exchange(code: string, verifier: string, redirectUri = REDIRECT) {
  const res = await form(discovery.token_endpoint, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: CLIENT_ID,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function tokensFor(email: string) {
  const { verifier, challenge } = pkce();
  const back = await signIn(email, challenge);
  const t = await exchange(back.searchParams.get('code')!, verifier);
  expect(t.status).toBe(200);
  return t.body;
}

describe('discovery', () => {
  it('lists the endpoints a browser sign-in needs', () => {
    const issuer = `${baseUrl()}/local-idp`;
    expect(discovery).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      end_session_endpoint: `${issuer}/logout`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(discovery.response_types_supported).toContain('code');
  });

  it('is readable from another origin', async () => {
    const res = await fetch(`${baseUrl()}/local-idp/.well-known/openid-configuration`, {
      headers: { origin: 'http://localhost:5173' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('authorization page', () => {
  it('is an HTML form with one field labelled Email that posts back with the request', async () => {
    const { challenge } = pkce();
    const res = await fetch(`${discovery.authorization_endpoint}?${authorizeParams(challenge)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toMatch(/<label for="email">Email<\/label>/);
    expect(html).toMatch(/<input id="email" name="email" type="email"/);
    expect(html.match(/<input(?![^>]*type="hidden")/g)).toHaveLength(1);
    expect(html).toContain(`value="${challenge}"`);
    expect(html).toContain('name="state" value="st-123"');
  });

  it('escapes what it echoes', async () => {
    const { challenge } = pkce();
    const res = await fetch(
      `${discovery.authorization_endpoint}?${authorizeParams(challenge, { state: '"><script>alert(1)</script>' })}`,
    );
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)</script>');
  });

  it('refuses an unknown client or a redirect URI off this machine with a page, not a redirect', async () => {
    const { challenge } = pkce();
    for (const extra of [
      { client_id: 'someone-else' },
      { redirect_uri: 'https://evil.example.com/cb' },
      { redirect_uri: 'not a url' },
    ] as Record<string, string>[]) {
      const res = await fetch(`${discovery.authorization_endpoint}?${authorizeParams(challenge, extra)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('sends a request without PKCE S256 back with an error', async () => {
    for (const extra of [
      { code_challenge_method: 'plain' },
      { code_challenge: '' },
      { response_type: 'token' },
    ] as Record<string, string>[]) {
      const { challenge } = pkce();
      const res = await fetch(`${discovery.authorization_endpoint}?${authorizeParams(challenge, extra)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('st-123');
    }
  });

  it('shows the page again with an error for an email that is not one', async () => {
    const { challenge } = pkce();
    const res = await form(discovery.authorization_endpoint, {
      ...Object.fromEntries(authorizeParams(challenge)),
      email: 'nobody',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('id="email-error"');
  });

  it('redirects back with a code and the state', async () => {
    const { challenge } = pkce();
    const back = await signIn(`${newSub()}@example.com`, challenge);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    expect(back.searchParams.get('state')).toBe('st-123');
  });
});

describe('token endpoint: authorization code with PKCE', () => {
  it('returns access, id and refresh tokens; the access token works on the admin API', async () => {
    const email = `${newSub()}@example.com`;
    const t = await tokensFor(email);
    expect(t).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const access = decodeJwt(t.access_token);
    expect(access).toMatchObject({ iss: discovery.issuer, token_use: 'access', client_id: CLIENT_ID, email });
    expect(access.scope).toContain('openid');
    expect(access.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const id = await jwtVerify(t.id_token, jwks, { issuer: discovery.issuer, audience: CLIENT_ID });
    expect(id.payload).toMatchObject({ sub: access.sub, email, nonce: 'n-456', token_use: 'id' });

    const me = await request('GET', admin('/auth/me'), { token: t.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user).toEqual({ sub: access.sub, email });
  });

  it('derives the user from the email: the same email (any case) is the same user, another is another', async () => {
    const email = `${newSub()}@example.com`;
    const a = decodeJwt((await tokensFor(email)).access_token).sub;
    const b = decodeJwt((await tokensFor(email.toUpperCase())).access_token).sub;
    const c = decodeJwt((await tokensFor(`other-${email}`)).access_token).sub;
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('refuses a wrong verifier, a reused code, another redirect URI and an unknown client', async () => {
    const { verifier, challenge } = pkce();
    let back = await signIn(`${newSub()}@example.com`, challenge);
    const wrong = await exchange(back.searchParams.get('code')!, pkce().verifier);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The failed exchange spent the code.
    expect((await exchange(back.searchParams.get('code')!, verifier)).body.error).toBe('invalid_grant');

    back = await signIn(`${newSub()}@example.com`, challenge);
    const code = back.searchParams.get('code')!;
    expect((await exchange(code, verifier, 'http://127.0.0.1:5173/other')).body.error).toBe('invalid_grant');

    back = await signIn(`${newSub()}@example.com`, challenge);
    expect((await exchange(back.searchParams.get('code')!, verifier)).status).toBe(200);
    expect((await exchange(back.searchParams.get('code')!, verifier)).body.error).toBe('invalid_grant');

    const res = await form(discovery.token_endpoint, {
      grant_type: 'authorization_code',
      code: 'x',
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: 'nope',
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('refuses an unknown grant type', async () => {
    const res = await form(discovery.token_endpoint, { grant_type: 'password', client_id: CLIENT_ID });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });
});

describe('refresh and sign-out', () => {
  it('renews tokens with the refresh token until the session signs out', async () => {
    const email = `${newSub()}@example.com`;
    const first = await tokensFor(email);
    const renew = () =>
      form(discovery.token_endpoint, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: CLIENT_ID,
      });

    const res = await renew();
    expect(res.status).toBe(200);
    const renewed = (await res.json()) as Record<string, string>;
    expect(renewed.access_token).not.toBe(first.access_token);
    expect(decodeJwt(renewed.access_token!)).toMatchObject({
      sub: decodeJwt(first.access_token).sub,
      email,
      token_use: 'access',
    });
    expect((await request('GET', admin('/auth/me'), { token: renewed.access_token })).status).toBe(200);
    // The renewed id token is of the same sign-in: same subject, same auth_time, no nonce.
    const [oldId, newId] = [decodeJwt(first.id_token), decodeJwt(renewed.id_token!)];
    expect(newId).toMatchObject({ sub: oldId.sub, aud: oldId.aud, auth_time: oldId.auth_time });
    expect(newId.nonce).toBeUndefined();

    const out = await fetch(
      `${discovery.end_session_endpoint}?${new URLSearchParams({
        id_token_hint: first.id_token,
        post_logout_redirect_uri: 'http://127.0.0.1:5173/',
        state: 'bye',
      })}`,
      { redirect: 'manual' },
    );
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('http://127.0.0.1:5173/?state=bye');

    const after = await renew();
    expect(after.status).toBe(400);
    expect(await after.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('does not redirect sign-out off this machine', async () => {
    const out = await fetch(
      `${discovery.end_session_endpoint}?post_logout_redirect_uri=${encodeURIComponent('https://evil.example.com/')}`,
      { redirect: 'manual' },
    );
    expect(out.status).toBe(200);
    expect(out.headers.get('location')).toBeNull();
  });
});

describe('JSON mode of the token endpoint', () => {
  it('still mints a token for a given sub, email and claims', async () => {
    const sub = newSub();
    const r = await request('POST', '/local-idp/token', {
      body: { sub, email: `${sub}@example.com`, claims: { custom: 'x' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600 });
    expect(decodeJwt(r.body.accessToken)).toMatchObject({
      sub,
      email: `${sub}@example.com`,
      custom: 'x',
      token_use: 'access',
      client_id: CLIENT_ID,
    });
    expect((await request('POST', '/local-idp/token', { body: {} })).status).toBe(400);
  });
});
