import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { mask, maskAll, seal, unseal } from '#shared/domain/events-out/credentials.ts';

describe('credentials (local envelope)', () => {
  beforeAll(() => {
    delete process.env.KMS_KEY_ID;
    process.env.LOCAL_DATA_KEY = randomBytes(32).toString('base64');
  });
  const ctx = { tenantId: 't1', integrationId: 'int_1' };

  it('round-trips and stores no plaintext', async () => {
    const sealed = await seal({ secret: 'super-secret-value-1234' }, ctx);
    expect(sealed.scheme).toBe('local');
    expect(JSON.stringify(sealed)).not.toContain('super-secret');
    expect(await unseal(sealed, ctx)).toEqual({ secret: 'super-secret-value-1234' });
  });

  it('uses a fresh data key and iv per write', async () => {
    const a = await seal({ secret: 'same-value-here' }, ctx);
    const b = await seal({ secret: 'same-value-here' }, ctx);
    expect(a.encryptedKey).not.toBe(b.encryptedKey);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('is bound to its tenant and integration and detects tampering', async () => {
    const sealed = await seal({ secret: 'value-of-secret' }, ctx);
    await expect(unseal(sealed, { ...ctx, tenantId: 't2' })).rejects.toThrow();
    const tampered = {
      ...sealed,
      ciphertext: Buffer.from(Buffer.from(sealed.ciphertext, 'base64').map((x, i) => (i === 0 ? x ^ 1 : x))).toString(
        'base64',
      ),
    };
    await expect(unseal(tampered, ctx)).rejects.toThrow();
  });

  it('masks as **** plus the last 4 characters, never a whole short value', () => {
    expect(mask('whsec_abcdef123456')).toBe('****3456');
    expect(mask('short')).toBe('****');
    expect(mask('😀😀😀😀😀😀😀😀x')).toBe('****😀😀😀x');
    expect(maskAll({ a: 'abcdefghij', b: 'xyz' })).toEqual({ a: '****ghij', b: '****' });
  });
});
