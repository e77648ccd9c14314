import { describe, expect, it } from 'vitest';
import {
  BusinessHoursSchema,
  instantOf,
  openState,
  type BusinessHours,
} from '#shared/domain/tenants/business-hours.ts';

const at = (iso: string) => new Date(iso);
const weekdays = (ranges: Array<[string, string]>) => ({
  mon: ranges,
  tue: ranges,
  wed: ranges,
  thu: ranges,
  fri: ranges,
});

describe('business hours: open or closed, and when next open', () => {
  it('is always open without business hours', () => {
    expect(openState(null, at('2026-11-22T03:00:00Z'))).toEqual({ online: true, nextOpenAt: null });
  });

  it('converts with the time zone: 09:00-17:00 in Berlin (UTC+1 in winter)', () => {
    const h: BusinessHours = { timezone: 'Europe/Berlin', weekly: weekdays([['09:00', '17:00']]) };
    // Tuesday 2026-11-24 07:59Z is 08:59 in Berlin: closed, opens at 09:00 local = 08:00Z.
    expect(openState(h, at('2026-11-24T07:59:00Z'))).toEqual({ online: false, nextOpenAt: '2026-11-24T08:00:00.000Z' });
    expect(openState(h, at('2026-11-24T08:00:00Z'))).toEqual({ online: true, nextOpenAt: null });
    // 17:00 local is the end: closed from that minute; next is Wednesday 09:00.
    expect(openState(h, at('2026-11-24T16:00:00Z'))).toEqual({ online: false, nextOpenAt: '2026-11-25T08:00:00.000Z' });
    // Friday evening: next is Monday.
    expect(openState(h, at('2026-11-27T18:00:00Z')).nextOpenAt).toBe('2026-11-30T08:00:00.000Z');
  });

  it('takes the same wall times in another zone (New York, UTC-5 in winter; Kolkata, UTC+5:30)', () => {
    expect(
      openState({ timezone: 'America/New_York', weekly: weekdays([['09:00', '17:00']]) }, at('2026-11-24T13:59:00Z')),
    ).toEqual({ online: false, nextOpenAt: '2026-11-24T14:00:00.000Z' });
    expect(
      openState({ timezone: 'Asia/Kolkata', weekly: weekdays([['09:00', '17:00']]) }, at('2026-11-24T03:29:00Z')),
    ).toEqual({ online: false, nextOpenAt: '2026-11-24T03:30:00.000Z' });
  });

  it('crosses midnight: a range 22:00-02:00 holds into the next day, and belongs to the day it starts', () => {
    const h: BusinessHours = { timezone: 'UTC', weekly: { fri: [['22:00', '02:00']] } };
    expect(openState(h, at('2026-11-27T21:59:00Z')).online).toBe(false); // Friday 21:59
    expect(openState(h, at('2026-11-27T23:30:00Z')).online).toBe(true); // Friday 23:30
    expect(openState(h, at('2026-11-28T01:59:00Z')).online).toBe(true); // Saturday 01:59, Friday's range
    expect(openState(h, at('2026-11-28T02:00:00Z'))).toEqual({ online: false, nextOpenAt: '2026-12-04T22:00:00.000Z' });
    // A range to 24:00 ends at midnight exactly.
    const late: BusinessHours = { timezone: 'UTC', weekly: { mon: [['20:00', '24:00']] } };
    expect(openState(late, at('2026-11-23T23:59:00Z')).online).toBe(true);
    expect(openState(late, at('2026-11-24T00:00:00Z')).online).toBe(false);
  });

  it('a Sunday night range runs into Monday', () => {
    const h: BusinessHours = { timezone: 'UTC', weekly: { sun: [['23:00', '01:00']] } };
    expect(openState(h, at('2026-11-30T00:30:00Z')).online).toBe(true); // Monday 00:30
  });

  it("skips holidays (in the tenant's zone), and a holiday of the start day cancels a range that crosses midnight", () => {
    const h: BusinessHours = {
      timezone: 'Europe/Berlin',
      weekly: weekdays([['09:00', '17:00']]),
      holidays: ['2026-12-24', '2026-12-25'],
    };
    expect(openState(h, at('2026-12-24T10:00:00Z'))).toEqual({ online: false, nextOpenAt: '2026-12-28T08:00:00.000Z' });
    const night: BusinessHours = { timezone: 'UTC', weekly: { thu: [['22:00', '02:00']] }, holidays: ['2026-12-24'] };
    expect(openState(night, at('2026-12-25T01:00:00Z')).online).toBe(false);
  });

  it('is closed with no next opening when no day has hours', () => {
    expect(openState({ timezone: 'UTC', weekly: {} }, at('2026-11-24T10:00:00Z'))).toEqual({
      online: false,
      nextOpenAt: null,
    });
  });

  it('gets daylight-saving switch days right (Berlin: 2026-03-29 forward, 2026-10-25 back)', () => {
    const h: BusinessHours = {
      timezone: 'Europe/Berlin',
      weekly: { sun: [['09:00', '17:00']], sat: [['09:00', '17:00']] },
    };
    // Saturday before the switch opens at 08:00Z (UTC+1); Sunday after it at 07:00Z (UTC+2).
    expect(openState(h, at('2026-03-28T18:00:00Z')).nextOpenAt).toBe('2026-03-29T07:00:00.000Z');
    expect(openState(h, at('2026-03-29T06:59:00Z')).online).toBe(false);
    expect(openState(h, at('2026-03-29T07:00:00Z')).online).toBe(true);
    expect(openState(h, at('2026-03-29T14:59:00Z')).online).toBe(true); // 16:59 CEST
    expect(openState(h, at('2026-03-29T15:00:00Z')).online).toBe(false);
    // Back to UTC+1 on 2026-10-25: 09:00 local is 08:00Z.
    expect(openState(h, at('2026-10-24T20:00:00Z')).nextOpenAt).toBe('2026-10-25T08:00:00.000Z');
    expect(openState(h, at('2026-10-25T15:59:00Z')).online).toBe(true); // 16:59 CET
  });

  it('an opening time the clock skips opens when the clock jumps past it; a repeated one at its first occurrence', () => {
    // 02:30 does not exist in Berlin on 2026-03-29 (02:00 CET -> 03:00 CEST at 01:00Z).
    expect(new Date(instantOf('Europe/Berlin', Date.UTC(2026, 2, 29, 2, 30))).toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    // 02:30 happens twice on 2026-10-25: first at 00:30Z (CEST).
    expect(new Date(instantOf('Europe/Berlin', Date.UTC(2026, 9, 25, 2, 30))).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    const h: BusinessHours = { timezone: 'Europe/Berlin', weekly: { sun: [['02:30', '06:00']] } };
    expect(openState(h, at('2026-03-29T00:30:00Z')).nextOpenAt).toBe('2026-03-29T01:00:00.000Z');
    expect(openState(h, at('2026-03-29T01:00:00Z')).online).toBe(true);
  });

  it('in the southern hemisphere too (Sydney moves forward on 2026-10-04)', () => {
    const h: BusinessHours = { timezone: 'Australia/Sydney', weekly: { mon: [['09:00', '17:00']] } };
    // Monday 2026-09-28 09:00 AEST = 23:00Z Sunday; Monday 2026-10-05 09:00 AEDT = 22:00Z Sunday.
    expect(openState(h, at('2026-09-27T12:00:00Z')).nextOpenAt).toBe('2026-09-27T23:00:00.000Z');
    expect(openState(h, at('2026-10-04T12:00:00Z')).nextOpenAt).toBe('2026-10-04T22:00:00.000Z');
  });
});

describe('business hours: validation', () => {
  const errors = (v: unknown) => {
    const r = BusinessHoursSchema.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('accepts a week, midnight ranges and holidays', () => {
    expect(
      errors({
        timezone: 'Europe/Berlin',
        weekly: {
          mon: [
            ['09:00', '12:00'],
            ['13:00', '17:00'],
          ],
          sat: [['22:00', '02:00']],
          sun: [['03:00', '24:00']],
        },
        holidays: ['2026-12-25'],
      }),
    ).toEqual([]);
  });
  it("refuses an unknown time zone, overlaps (also across midnight and the week's end), bad times and dates", () => {
    expect(errors({ timezone: 'Mars/Olympus', weekly: {} })[0]).toMatch(/^timezone: must be an IANA time zone/);
    expect(
      errors({
        timezone: 'UTC',
        weekly: {
          mon: [
            ['09:00', '12:00'],
            ['11:00', '13:00'],
          ],
        },
      }),
    ).toEqual(['weekly: Monday has overlapping ranges']);
    expect(errors({ timezone: 'UTC', weekly: { mon: [['22:00', '02:00']], tue: [['01:00', '03:00']] } })).toEqual([
      'weekly: Monday and Tuesday have overlapping ranges',
    ]);
    expect(errors({ timezone: 'UTC', weekly: { sun: [['22:00', '02:00']], mon: [['01:00', '03:00']] } })).toEqual([
      'weekly: Monday and Sunday have overlapping ranges',
    ]);
    expect(errors({ timezone: 'UTC', weekly: { mon: [['09:00', '09:00']] } })).toHaveLength(1);
    expect(errors({ timezone: 'UTC', weekly: { mon: [['9:00', '17:00']] } })).toHaveLength(1);
    expect(errors({ timezone: 'UTC', weekly: { mon: [['09:00', '24:01']] } })).toHaveLength(1);
    expect(
      errors({
        timezone: 'UTC',
        weekly: {
          mon: [
            ['01:00', '02:00'],
            ['03:00', '04:00'],
            ['05:00', '06:00'],
            ['07:00', '08:00'],
          ],
        },
      }),
    ).toEqual(['weekly.mon: must have at most 3 ranges a day']);
    expect(errors({ timezone: 'UTC', weekly: { monday: [] } })).toHaveLength(1);
    expect(errors({ timezone: 'UTC', weekly: {}, holidays: ['2026-02-30'] })).toEqual([
      'holidays.0: must be a date YYYY-MM-DD',
    ]);
    expect(errors({ timezone: 'UTC', weekly: {}, holidays: Array.from({ length: 101 }, () => '2026-01-01') })).toEqual([
      'holidays: must have at most 100 days',
    ]);
  });
});
