import { createHmac, timingSafeEqual } from 'node:crypto';
import { config } from '#shared/core/config.ts';
import { InvalidCursor } from '#shared/core/errors.ts';

// Opaque pagination cursors: base64url(JSON { k: LastEvaluatedKey }) + "." + HMAC-SHA256. The MAC
// also covers the tenant, the list name and the normalised filters (not carried in the token), so
// a cursor replayed against another tenant, list or filter set fails verification.

export type PageKey = Record<string, string | number>;
export interface CursorScope {
  tenantId: string;
  list: string;
  filters: Record<string, string | undefined>;
}

/** Filters in a fixed order, absent ones dropped, so that `{a, b}` and `{b, a}` bind the same. */
const normalise = (filters: CursorScope['filters']) =>
  JSON.stringify(
    Object.keys(filters)
      .sort()
      .filter((k) => filters[k] !== undefined)
      .map((k) => [k, filters[k]]),
  );

const mac = (secret: string, scope: CursorScope, payload: string) =>
  createHmac('sha256', secret)
    .update(JSON.stringify([scope.tenantId, scope.list, normalise(scope.filters), payload]))
    .digest();

export function encodeCursor(scope: CursorScope, key: PageKey, secret = config.cursorSecret): string {
  const payload = Buffer.from(JSON.stringify({ k: key })).toString('base64url');
  return `${payload}.${mac(secret, scope, payload).toString('base64url')}`;
}

const isPageKey = (v: unknown): v is PageKey =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.keys(v).length > 0 &&
  Object.values(v).every((x) => typeof x === 'string' || typeof x === 'number');

/** The page key a cursor carries; InvalidCursor (400) for anything this service did not issue for `scope`. */
export function decodeCursor(scope: CursorScope, cursor: string, secret = config.cursorSecret): PageKey {
  const parts = cursor.split('.');
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!))
    throw new InvalidCursor();
  const [payload, sig] = parts as [string, string];
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(secret, scope, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor();
  }
  const k = (parsed as { k?: unknown } | null)?.k;
  if (!isPageKey(k)) throw new InvalidCursor();
  return k;
}
