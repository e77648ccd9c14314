import { afterEach, describe, expect, it } from 'vitest';
import { clock, newId, setIds, useRandomIds } from '#shared/core/clock.ts';
import { laterThan } from '#shared/core/time.ts';
import { fakeClock, useRealClock } from '../fixtures/clock.ts';

// The clock port of shared/core: every reading follows the clock put in, and the real one comes back.

afterEach(() => {
  useRealClock();
  useRandomIds();
});

describe('the clock', () => {
  it('reads a fake clock in every form, moved forward or set, and the real one again after', () => {
    const c = fakeClock('2031-01-01T00:00:59.500Z');
    expect(clock.now()).toBe(Date.parse('2031-01-01T00:00:59.500Z'));
    expect(clock.iso()).toBe('2031-01-01T00:00:59.500Z');
    expect(clock.seconds()).toBe(Date.parse('2031-01-01T00:00:59Z') / 1000);
    expect(clock.date().toISOString()).toBe('2031-01-01T00:00:59.500Z');
    c.advance(500);
    expect(clock.iso()).toBe('2031-01-01T00:01:00.000Z');
    // What shared/ derives from the time follows it too.
    expect(laterThan('2030-12-31T23:59:59.000Z')).toBe('2031-01-01T00:01:00.000Z');
    expect(laterThan('2031-01-01T00:01:00.000Z')).toBe('2031-01-01T00:01:00.001Z');
    c.set(0);
    expect(clock.iso()).toBe('1970-01-01T00:00:00.000Z');
    useRealClock();
    const before = Date.now();
    const read = clock.now();
    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(Date.now());
  });

  it('makes ids with the maker put in, and random UUIDs otherwise', () => {
    let n = 0;
    setIds({ newId: () => `id-${++n}` });
    expect([newId(), newId()]).toEqual(['id-1', 'id-2']);
    useRandomIds();
    const a = newId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newId()).not.toBe(a);
  });
});
