import { describe, expect, it } from 'vitest';
import { RateLimited } from '#shared/core/errors.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import { asRateLimited, perMinute, refuseSeenFull } from '#shared/domain/windows.ts';

const at = (iso: string) => new Date(iso);
const counter = (tenant: string, now: Date, limit = 60) =>
  perMinute(tenant, 'newconv#10.0.0.1', limit, now, 'new conversations');

/** The refusal `refuseSeenFull` throws, or null. */
const seen = (c: ReturnType<typeof counter>, now: Date) => {
  try {
    refuseSeenFull([c], now);
    return null;
  } catch (e) {
    return e as RateLimited;
  }
};

describe('windows seen full', () => {
  it('refuses, before anything is written, a window the transaction found full, until its minute ends', () => {
    const now = at('2031-05-06T10:20:10.000Z');
    const c = counter('t-seen', now);
    expect(seen(c, now)).toBeNull();
    const refusal = asRateLimited(new TxConditionFailed([false, true]), [{}, c.item] as never, [c]);
    expect(refusal).toBeInstanceOf(RateLimited);
    const later = at('2031-05-06T10:20:59.999Z');
    const again = seen(counter('t-seen', later), later);
    expect(again).toBeInstanceOf(RateLimited);
    expect(again!.message).toBe('at most 60 new conversations a minute');
    // A figure the tenant raised meanwhile is another window; so is the next minute.
    expect(seen(counter('t-seen', later, 90), later)).toBeNull();
    const next = at('2031-05-06T10:21:00.000Z');
    expect(seen(counter('t-seen', next), next)).toBeNull();
  });

  it('remembers only the window that failed: another tenant, and a transaction that failed elsewhere, are not refused', () => {
    const now = at('2031-05-06T11:00:00.000Z');
    const mine = counter('t-full', now);
    const other = counter('t-other', now);
    asRateLimited(new TxConditionFailed([true]), [mine.item], [mine]);
    expect(seen(other, now)).toBeNull();
    const third = counter('t-third', now);
    const failedElsewhere = asRateLimited(new TxConditionFailed([true, false]), [{}, third.item] as never, [third]);
    expect(failedElsewhere).toBeInstanceOf(TxConditionFailed);
    expect(seen(third, now)).toBeNull();
  });
});
