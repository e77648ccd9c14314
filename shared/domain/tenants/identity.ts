import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Verified visitor identity: the site's server signs the visitor's user id with the tenant's
// identity secret (HMAC-SHA256, lowercase hex), and the widget passes id and signature on.

export const newIdentitySecret = () => `ids_${randomBytes(32).toString('base64url')}`;

export const identityHash = (secret: string, userId: string) =>
  createHmac('sha256', secret).update(userId, 'utf8').digest('hex');

/** Constant time over the 32 bytes of the digest; a hash of another length never matches. */
export function verifyIdentity(secret: string | undefined, userId: string, userHash: string): boolean {
  if (!secret) return false;
  const expected = Buffer.from(identityHash(secret, userId), 'hex');
  const given = Buffer.from(userHash.toLowerCase(), 'hex');
  return given.length === expected.length && userHash.length === 64 && timingSafeEqual(given, expected);
}

export const identityRequired = (config: Record<string, unknown>) =>
  (config.identity as { required?: unknown } | undefined)?.required === true;
