import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks (https://www.standardwebhooks.com): secrets `whsec_` + base64 of 24 to 64
// random bytes; each attempt is signed by the specification's own library.

const PREFIX = 'whsec_';

export const newSecret = () => PREFIX + randomBytes(32).toString('base64');

/** Null when `secret` has the specification's form, else why not. */
export function checkSecret(secret: string): string | null {
  const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : null;
  if (b64 === null || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    return 'must be whsec_ followed by the base64 of 24 to 64 random bytes';
  }
  const n = Buffer.from(b64, 'base64').length;
  return n >= 24 && n <= 64 ? null : `must encode 24 to 64 bytes (this one has ${n})`;
}

/** The three headers of one attempt; `webhook-id` is the event id, the same on every attempt. */
export function signedHeaders(secret: string, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}
