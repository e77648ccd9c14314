import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '#shared/data/cursor.ts';

const secret = 'test-secret';
const scope = { tenantId: 't1', list: 'tickets', filters: { status: 'open', priority: undefined } };
const key = { pk: 'TENANT#t1#TICKET#x', sk: 'TICKET', gsi2pk: 'p', gsi2sk: 's' };
const invalid = expect.objectContaining({ code: 'INVALID_CURSOR', status: 400 });

describe('cursor', () => {
  it('round-trips a key for the scope it was issued for', () => {
    const c = encodeCursor(scope, key, secret);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(scope, c, secret)).toEqual(key);
  });

  it('binds normalised filters: order and absent ones do not matter', () => {
    const c = encodeCursor(scope, key, secret);
    expect(
      decodeCursor({ tenantId: 't1', list: 'tickets', filters: { priority: undefined, status: 'open' } }, c, secret),
    ).toEqual(key);
    expect(decodeCursor({ tenantId: 't1', list: 'tickets', filters: { status: 'open' } }, c, secret)).toEqual(key);
  });

  it('refuses another tenant, list, filters or secret', () => {
    const c = encodeCursor(scope, key, secret);
    expect(() => decodeCursor({ ...scope, tenantId: 't2' }, c, secret)).toThrow(invalid);
    expect(() => decodeCursor({ ...scope, list: 'conversations' }, c, secret)).toThrow(invalid);
    expect(() => decodeCursor({ ...scope, filters: { status: 'closed' } }, c, secret)).toThrow(invalid);
    expect(() => decodeCursor({ ...scope, filters: {} }, c, secret)).toThrow(invalid);
    expect(() => decodeCursor(scope, c, 'other-secret')).toThrow(invalid);
  });

  it('refuses tampering and garbage', () => {
    const c = encodeCursor(scope, key, secret);
    const [payload, sig] = c.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ k: { ...key, pk: 'TENANT#t2#TICKET#x' } })).toString('base64url');
    for (const bad of [
      `${forged}.${sig}`,
      `${payload}.${sig.slice(0, -2)}`,
      `${payload}x.${sig}`,
      payload,
      'not a cursor',
      '..',
      `${c}.x`,
    ]) {
      expect(() => decodeCursor(scope, bad, secret), bad).toThrow(invalid);
    }
  });
});
