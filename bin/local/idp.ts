import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

// The local OpenID issuer that stands in for Cognito: keys made at start, discovery and JWKS
// documents, and access tokens shaped like Cognito's (token_use, client_id, sub, scope, email).

export const LOCAL_CLIENT_ID = 'local-dashboard';

export interface LocalIdp {
  issuer: string;
  jwksUri: string;
  clientId: string;
  jwks: { keys: JWK[] };
  discovery(): Record<string, unknown>;
  token(input: { sub: string; email?: string | null; claims?: Record<string, unknown> }): Promise<string>;
}

export async function createLocalIdp(baseUrl: string): Promise<LocalIdp> {
  const issuer = `${baseUrl}/local-idp`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    clientId: LOCAL_CLIENT_ID,
    jwks: { keys: [jwk] },
    discovery: () => ({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['none'],
    }),
    async token({ sub, email, claims = {} }) {
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = {
        iss: issuer, sub, client_id: LOCAL_CLIENT_ID, token_use: 'access', scope: 'openid email',
        iat: now, exp: now + 3600, jti: randomUUID(), ...(email ? { email } : {}), ...claims,
      };
      // A claim set to null in `claims` is left out, so tests can make tokens without exp and the like.
      for (const [k, v] of Object.entries(payload)) if (v === null) delete payload[k];
      return new SignJWT(payload as Record<string, unknown>).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);
    },
  };
}
