import { describe, expect, it } from 'vitest';
import { backAt, hoursText } from '../../web/widget/src/views/hours.ts';

// The widget's line about the team's hours, in the customer's own clock (this process runs in UTC
// or wherever the machine is: the expectations are built from the same local dates).

const at = (y: number, m: number, d: number, h: number, min = 0) => new Date(y, m - 1, d, h, min);
const time = (d: Date) => d.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });

describe('the hours line', () => {
  const now = at(2026, 11, 24, 22, 30); // a Tuesday evening

  it('names today, tomorrow, a weekday within the week, then a date', () => {
    expect(backAt(at(2026, 11, 24, 23, 0).toISOString(), now)).toBe(`today at ${time(at(2026, 11, 24, 23, 0))}`);
    expect(backAt(at(2026, 11, 25, 9, 0).toISOString(), now)).toBe(`tomorrow at ${time(at(2026, 11, 25, 9, 0))}`);
    const friday = at(2026, 11, 27, 9, 0);
    expect(backAt(friday.toISOString(), now)).toBe(
      `on ${friday.toLocaleDateString(undefined, { weekday: 'long' })} at ${time(friday)}`,
    );
    const later = at(2026, 12, 7, 9, 0);
    expect(backAt(later.toISOString(), now)).toBe(
      `on ${later.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} at ${time(later)}`,
    );
  });

  it('says the reply time while open, nothing without one, and when the team is back while away', () => {
    expect(hoursText({ online: true, nextOpenAt: null, replyTime: 'usually within an hour' })).toBe(
      'Our team replies usually within an hour.',
    );
    expect(hoursText({ online: true, nextOpenAt: null, replyTime: null })).toBeNull();
    expect(hoursText({ online: false, nextOpenAt: at(2026, 11, 25, 9, 0).toISOString(), replyTime: 'fast' }, now)).toBe(
      `We're away — back tomorrow at ${time(at(2026, 11, 25, 9, 0))} your time.`,
    );
    expect(hoursText({ online: false, nextOpenAt: null, replyTime: null })).toBe("We're away right now.");
  });
});
