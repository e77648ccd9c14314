import { describe, expect, it, vi } from 'vitest';

// A resolver that never answers: the delivery must still end at its timeout, not hang on the lookup.
vi.mock('node:dns/promises', () => ({ lookup: () => new Promise(() => {}) }));
const { postJson } = await import('#shared/domain/events-out/outbound.ts');

describe('delivery deadline', () => {
  it('counts the DNS lookup against the timeout', async () => {
    const started = Date.now();
    const result = await postJson('https://hooks.example.com/in', '{}', {}, { allowLoopback: false, timeoutMs: 200 });
    expect(result).toEqual({ ok: false, status: null, error: 'no answer within 0.2 s', body: '', timedOut: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
