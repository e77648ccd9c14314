import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';

// The local OpenID issuer that stands in for Cognito: keys made at start, discovery and JWKS
// documents, and access tokens shaped like Cognito's (token_use, client_id, sub, scope, email).
// For the dashboard it also signs people in as a browser app does (OIDC code flow with PKCE): an
// authorization page, the code flow with PKCE S256, refresh tokens, id tokens and sign-out.

export const LOCAL_CLIENT_ID = 'local-dashboard';
/** The owner of the demo tenant that `npm start` seeds (and the browser tests too). */
export const DEMO_OWNER_EMAIL = 'owner@demo.example';

const ACCESS_TTL = 3600;
const CODE_TTL_MS = 60_000;
const REFRESH_TTL_MS = 30 * 24 * 3600_000;

export interface IdpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface LocalIdp {
  issuer: string;
  jwksUri: string;
  clientId: string;
  jwks: { keys: JWK[] };
  discovery(): Record<string, unknown>;
  token(input: { sub: string; email?: string | null; claims?: Record<string, unknown> }): Promise<string>;
  /**
   * The issuer's endpoints under `/local-idp/`: the browser sign-in (authorize, the form-encoded
   * token grants, logout) and the token endpoint's JSON mode. Null when the request is none of them.
   */
  handle(method: string, url: URL, contentType: string, body: Buffer): Promise<IdpResponse | null>;
}

/** The same email is the same user: a UUID (version 8, RFC 9562) made from a hash of the normalised email. */
export function subForEmail(email: string): string {
  const h = createHash('sha256').update(`local-idp:${email.trim().toLowerCase()}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

// A local stand-in registers no redirect URIs; it accepts only loopback ones so that a page
// elsewhere cannot use it to collect codes.
function loopbackUrl(value: string | null): URL | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
      return u;
  } catch {
    /* not a URL */
  }
  return null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

interface Grant {
  sub: string;
  email: string;
  scope: string;
  nonce: string | null;
  sid: string;
  authTime: number;
}
interface Code extends Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  expires: number;
}
interface Refresh extends Grant {
  clientId: string;
  expires: number;
}

const CORS = { 'access-control-allow-origin': '*' };
const json = (status: number, body: unknown, extra: Record<string, string> = {}): IdpResponse => ({
  status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS, ...extra },
  body: JSON.stringify(body),
});
const oauthError = (status: number, error: string, description: string) =>
  json(status, { error, error_description: description });
const redirect = (to: URL): IdpResponse => ({
  status: 302,
  headers: { location: to.href, 'cache-control': 'no-store' },
  body: '',
});

export interface LocalIdpOptions {
  /** The email of a seeded demo tenant's owner: the sign-in page names it and can fill it in. */
  demoEmail?: string;
}

export async function createLocalIdp(baseUrl: string, opts: LocalIdpOptions = {}): Promise<LocalIdp> {
  const issuer = `${baseUrl}/local-idp`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, Refresh>();

  const sign = (payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);

  async function token({
    sub,
    email,
    claims = {},
  }: {
    sub: string;
    email?: string | null;
    claims?: Record<string, unknown>;
  }) {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      iss: issuer,
      sub,
      client_id: LOCAL_CLIENT_ID,
      token_use: 'access',
      scope: 'openid email',
      iat: now,
      exp: now + ACCESS_TTL,
      jti: randomUUID(),
      ...(email ? { email } : {}),
      ...claims,
    };
    // A claim set to null in `claims` is left out, so tests can make tokens without exp and the like.
    for (const [k, v] of Object.entries(payload)) if (v === null) delete payload[k];
    return sign(payload);
  }

  async function tokenResponse(grant: Grant, clientId: string, refreshToken: string) {
    const now = Math.floor(Date.now() / 1000);
    const idToken = await sign({
      iss: issuer,
      sub: grant.sub,
      aud: clientId,
      token_use: 'id',
      email: grant.email,
      email_verified: true,
      // auth_time stays the sign-in's on refresh, as clients check (OpenID Connect Core 12.2).
      iat: now,
      auth_time: grant.authTime,
      exp: now + ACCESS_TTL,
      sid: grant.sid,
      ...(grant.nonce ? { nonce: grant.nonce } : {}),
    });
    return json(200, {
      access_token: await token({ sub: grant.sub, email: grant.email, claims: { scope: grant.scope } }),
      id_token: idToken,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TTL,
      scope: grant.scope,
    });
  }

  /** The authorize request's parameters, checked; an error page when the client or redirect URI is wrong. */
  function authorizeRequest(params: URLSearchParams): { redirectUri: URL } | { page: IdpResponse } {
    const redirectUri = loopbackUrl(params.get('redirect_uri'));
    if (params.get('client_id') !== LOCAL_CLIENT_ID) return { page: errorPage('Unknown client_id.') };
    if (!redirectUri) return { page: errorPage('redirect_uri must be a loopback http(s) URL.') };
    return { redirectUri };
  }

  function errorBack(redirectUri: URL, state: string | null, error: string, description: string) {
    const to = new URL(redirectUri);
    to.searchParams.set('error', error);
    to.searchParams.set('error_description', description);
    if (state) to.searchParams.set('state', state);
    return redirect(to);
  }

  /** The PKCE and response-type checks shared by the page and its form post; null when fine. */
  function flowError(params: URLSearchParams): string | null {
    if (params.get('response_type') !== 'code') return 'response_type must be code';
    if (params.get('code_challenge_method') !== 'S256') return 'code_challenge_method must be S256';
    if (!/^[A-Za-z0-9_-]{43}$/.test(params.get('code_challenge') ?? ''))
      return 'code_challenge must be a base64url SHA-256';
    return null;
  }

  function signInPage(params: URLSearchParams, error?: string, email = ''): IdpResponse {
    const names = [
      'client_id',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
      'nonce',
      'code_challenge',
      'code_challenge_method',
    ];
    const hidden = names
      .map((n) =>
        params.get(n) === null ? '' : `<input type="hidden" name="${n}" value="${escapeHtml(params.get(n)!)}">`,
      )
      .join('');
    // The demo owner's address, filled in by the same page asked again with OpenID's login_hint (the page runs no script).
    let demo = '';
    if (opts.demoEmail) {
      const hinted = new URL(`${issuer}/authorize`);
      for (const n of names) if (params.get(n) !== null) hinted.searchParams.set(n, params.get(n)!);
      hinted.searchParams.set('login_hint', opts.demoEmail);
      demo = `<p class="demo">To open the demo tenant, sign in as <strong>${escapeHtml(opts.demoEmail)}</strong>; any other email starts a new team of its own.
<a href="${escapeHtml(hinted.href)}">Use the demo owner</a></p>`;
    }
    const described = error ? ' aria-describedby="email-error" aria-invalid="true"' : '';
    return {
      status: error ? 400 : 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy':
          "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      },
      body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in - local issuer</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:24rem;margin:10vh auto;background:#fff;padding:2rem;border-radius:8px;border:1px solid #d0d4da}
h1{font-size:1.4rem;margin:0 0 .5rem}label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email]{width:100%;box-sizing:border-box;padding:.6rem;font:inherit;border:1px solid #6b7280;border-radius:4px}
button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;background:#1d4ed8;color:#fff;border:0;border-radius:4px;cursor:pointer}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}.error{color:#b91c1c}p.note{color:#4b5563;font-size:.9rem}
p.demo{background:#eff6ff;border:1px solid #bfdbfe;border-radius:4px;padding:.6rem .8rem;font-size:.95rem}p.demo a{display:block;width:fit-content;margin-top:.25rem;color:#1d4ed8;font-weight:600}
</style></head>
<body><main>
<h1>Sign in</h1>
<p class="note">Local issuer for development: any email signs in; the same email is always the same user.</p>
${demo}
<form method="post" action="${escapeHtml(issuer)}/authorize">${hidden}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"${described}>
${error ? `<p id="email-error" class="error">${escapeHtml(error)}</p>` : ''}
<button type="submit">Sign in</button>
</form>
</main></body></html>`,
    };
  }

  function errorPage(message: string): IdpResponse {
    return {
      status: 400,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>Sign-in error</h1><p>${escapeHtml(message)}</p></main></body></html>`,
    };
  }

  async function handle(method: string, url: URL, contentType: string, body: Buffer): Promise<IdpResponse | null> {
    const path = url.pathname.slice('/local-idp'.length);
    const form = /^application\/x-www-form-urlencoded\b/i.test(contentType);

    // Served with CORS, so that a dashboard on another local origin can read them.
    if (method === 'GET' && path === '/.well-known/openid-configuration')
      return json(200, discovery(), { 'cache-control': 'max-age=60' });
    if (method === 'GET' && path === '/.well-known/jwks.json')
      return json(200, jwks, { 'cache-control': 'max-age=60' });

    if (path === '/authorize' && (method === 'GET' || method === 'POST')) {
      const params = method === 'GET' ? url.searchParams : new URLSearchParams(body.toString('utf8'));
      const checked = authorizeRequest(params);
      if ('page' in checked) return checked.page;
      const state = params.get('state');
      const problem = flowError(params);
      if (problem) return errorBack(checked.redirectUri, state, 'invalid_request', problem);
      if (method === 'GET') return signInPage(params, undefined, (params.get('login_hint') ?? '').slice(0, 254));
      const email = (params.get('email') ?? '').trim();
      if (!EMAIL.test(email) || email.length > 254)
        return signInPage(params, 'Enter an email address, like name@example.com.', email);
      const code = randomBytes(32).toString('base64url');
      codes.set(code, {
        sub: subForEmail(email),
        email: email.toLowerCase(),
        scope: params.get('scope') ?? 'openid email',
        nonce: params.get('nonce'),
        sid: randomUUID(),
        authTime: Math.floor(Date.now() / 1000),
        clientId: LOCAL_CLIENT_ID,
        redirectUri: checked.redirectUri.href,
        challenge: params.get('code_challenge')!,
        expires: Date.now() + CODE_TTL_MS,
      });
      const to = new URL(checked.redirectUri);
      to.searchParams.set('code', code);
      if (state) to.searchParams.set('state', state);
      return redirect(to);
    }

    if (path === '/token' && method === 'POST' && form) {
      const p = new URLSearchParams(body.toString('utf8'));
      if (p.get('client_id') !== LOCAL_CLIENT_ID) return oauthError(401, 'invalid_client', 'unknown client_id');
      const grantType = p.get('grant_type');
      if (grantType === 'authorization_code') {
        const code = codes.get(p.get('code') ?? '');
        // A code is single use, even when the exchange fails.
        if (code) codes.delete(p.get('code')!);
        if (!code || code.expires < Date.now())
          return oauthError(400, 'invalid_grant', 'unknown, used or expired code');
        if (code.redirectUri !== p.get('redirect_uri'))
          return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
        const verifier = p.get('code_verifier') ?? '';
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
          return oauthError(400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
        if (s256(verifier) !== code.challenge)
          return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
        const refresh = randomBytes(32).toString('base64url');
        refreshTokens.set(refresh, { ...code, expires: Date.now() + REFRESH_TTL_MS });
        return tokenResponse(code, code.clientId, refresh);
      }
      if (grantType === 'refresh_token') {
        const value = p.get('refresh_token') ?? '';
        const grant = refreshTokens.get(value);
        if (!grant || grant.expires < Date.now())
          return oauthError(400, 'invalid_grant', 'unknown, revoked or expired refresh token');
        return tokenResponse({ ...grant, nonce: null }, grant.clientId, value);
      }
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    }

    if (path === '/logout' && method === 'GET') {
      const hint = url.searchParams.get('id_token_hint');
      if (hint) {
        // Signing out ends the session's refresh tokens, as Cognito's logout does.
        const sid = await jwtVerify(hint, publicKey, { issuer }).then(
          (r) => r.payload.sid,
          () => undefined,
        );
        if (sid) for (const [k, v] of refreshTokens) if (v.sid === sid) refreshTokens.delete(k);
      }
      const back = loopbackUrl(url.searchParams.get('post_logout_redirect_uri'));
      if (!back) {
        return {
          status: 200,
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed out</title></head><body><main><h1>Signed out</h1></main></body></html>',
        };
      }
      const state = url.searchParams.get('state');
      if (state) back.searchParams.set('state', state);
      return redirect(back);
    }

    // The JSON mode of the token endpoint: a token for any subject, for tests and `npm run token`.
    if (path === '/token' && method === 'POST') {
      const answer = (status: number, text: string): IdpResponse => ({
        status,
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      let input: { sub?: unknown; email?: unknown; claims?: unknown };
      try {
        input = JSON.parse(body.toString('utf8') || '{}') as typeof input;
      } catch {
        return answer(400, '{"error":"invalid_request","error_description":"body is not JSON"}');
      }
      if (typeof input.sub !== 'string' || !input.sub)
        return answer(400, '{"error":"invalid_request","error_description":"sub is required"}');
      const claims = input.claims && typeof input.claims === 'object' ? (input.claims as Record<string, unknown>) : {};
      const accessToken = await token({
        sub: input.sub,
        email: typeof input.email === 'string' ? input.email : null,
        claims,
      });
      return answer(200, JSON.stringify({ accessToken, tokenType: 'Bearer', expiresIn: 3600 }));
    }
    return null;
  }

  const jwks = { keys: [jwk] };
  const discovery = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    end_session_endpoint: `${issuer}/logout`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'email', 'profile'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['none'],
    claims_supported: ['sub', 'email', 'email_verified', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid'],
  });

  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    clientId: LOCAL_CLIENT_ID,
    jwks,
    discovery,
    token,
    handle,
  };
}
