import * as z from 'zod/mini';

// Business hours: a weekly timetable in the tenant's IANA time zone, with holidays. Times are wall
// clock times of that zone, converted with Intl.DateTimeFormat (no time-zone tables of our own).
// A range whose end is not after its start crosses midnight: ["22:00","02:00"] runs into the next
// day and belongs to the day it starts on (a holiday on that day cancels it, not one the day after).

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export interface BusinessHours {
  timezone: string;
  weekly: Partial<Record<Weekday, Array<[string, string]>>>;
  holidays?: string[];
}

const DAY = 1440;
const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$/;
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
/** A range as minutes from the start of its day; the end may pass 1440 (it crosses midnight). */
const span = ([from, to]: [string, string]) => {
  const s = minutes(from);
  const e = minutes(to);
  return { s, e: e > s ? e : e + DAY };
};

export const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
const isDate = (d: string) => {
  if (!/^\d{4}-\d\d-\d\d$/.test(d)) return false;
  const t = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(d);
};

const Range = z
  .tuple(
    [
      z.string().check(z.regex(HHMM, 'must be a time HH:MM (00:00 to 24:00)')),
      z.string().check(z.regex(HHMM, 'must be a time HH:MM (00:00 to 24:00)')),
    ],
    { message: 'must be a pair ["HH:MM","HH:MM"]' },
  )
  .check(
    z.refine(([a, b]) => a !== b && !(a === '24:00'), { message: 'must start before it ends (24:00 only as an end)' }),
  );

/** Ranges of the week as minutes from Monday 00:00, wrapped around the week's end. */
function weekSpans(weekly: BusinessHours['weekly']) {
  return WEEKDAYS.flatMap((d, i) =>
    (weekly[d] ?? []).map((r) => {
      const { s, e } = span(r);
      return { day: d, s: i * DAY + s, e: i * DAY + e };
    }),
  );
}

const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** Two ranges of the week that share a minute (a Sunday night range runs into Monday). */
export function overlap(weekly: BusinessHours['weekly']): string | null {
  const all = weekSpans(weekly);
  const week = 7 * DAY;
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i]!;
      const b = all[j]!;
      for (const shift of [-week, 0, week]) {
        if (a.s < b.e + shift && b.s + shift < a.e) {
          return a.day === b.day
            ? `${DAY_NAMES[a.day]} has overlapping ranges`
            : `${DAY_NAMES[a.day]} and ${DAY_NAMES[b.day]} have overlapping ranges`;
        }
      }
    }
  }
  return null;
}

export const BusinessHoursSchema = z
  .strictObject(
    {
      timezone: z
        .string({ message: 'must be an IANA time zone such as Europe/Berlin' })
        .check(z.refine(isTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' })),
      weekly: z.partialRecord(
        z.enum(WEEKDAYS, { message: 'must be a weekday mon to sun' }),
        z
          .array(Range, { message: 'must be a list of ranges' })
          .check(z.maxLength(3, 'must have at most 3 ranges a day')),
      ),
      holidays: z.optional(
        z
          .array(z.string().check(z.refine(isDate, { message: 'must be a date YYYY-MM-DD' })), {
            message: 'must be a list of dates',
          })
          .check(z.maxLength(100, 'must have at most 100 days')),
      ),
    },
    { message: 'must be an object { timezone, weekly, holidays }' },
  )
  .check(
    z.superRefine((h, ctx) => {
      const o = overlap(h.weekly as BusinessHours['weekly']);
      if (o) ctx.addIssue({ code: 'custom', message: o, path: ['weekly'] });
    }),
  );

// Wall clock of an instant in a zone, as Intl reports it.
const formatters = new Map<string, Intl.DateTimeFormat>();
function wallOf(tz: string, ms: number) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  return Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
}

/**
 * The instant at which a zone's wall clock shows `wall` (a wall time written as UTC milliseconds).
 * A time that happens twice (clocks going back) is its first occurrence; one that never happens
 * (clocks going forward) is the moment the clock jumps past it.
 */
export function instantOf(tz: string, wall: number): number {
  const offsets = [wall - 86_400_000, wall + 86_400_000].map((t) => wallOf(tz, t) - t);
  const fits = offsets.map((o) => wall - o).filter((t) => wallOf(tz, t) === wall);
  if (fits.length) return Math.min(...fits);
  // In the gap: the first minute whose wall clock is at or past `wall`.
  let lo = Math.min(...offsets.map((o) => wall - o));
  let hi = Math.max(...offsets.map((o) => wall - o));
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (wallOf(tz, mid) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

const dayOf = (wallMs: number) => new Date(wallMs).toISOString().slice(0, 10);
const weekdayOf = (wallMs: number): Weekday => WEEKDAYS[(new Date(wallMs).getUTCDay() + 6) % 7]!;

/** Whether the team is in now, and if not, when it next is (null: never, as no day has hours). */
export function openState(
  hours: BusinessHours | null | undefined,
  now: Date,
): { online: boolean; nextOpenAt: string | null } {
  if (!hours) return { online: true, nextOpenAt: null };
  const holidays = new Set(hours.holidays ?? []);
  const wallNow = wallOf(hours.timezone, now.getTime());
  const today = Date.UTC(
    new Date(wallNow).getUTCFullYear(),
    new Date(wallNow).getUTCMonth(),
    new Date(wallNow).getUTCDate(),
  );
  const ranges = (dayStart: number) =>
    holidays.has(dayOf(dayStart)) ? [] : (hours.weekly[weekdayOf(dayStart)] ?? []).map(span);
  // Open: a range of today, or one of yesterday that crosses midnight, holds the wall clock now.
  for (const back of [1, 0]) {
    const start = today - back * DAY * 60_000;
    const at = (wallNow - start) / 60_000;
    if (ranges(start).some(({ s, e }) => s <= at && at < e)) return { online: true, nextOpenAt: null };
  }
  // Closed: the first range start after now; every holiday may take a day, so look that far.
  for (let d = 0; d <= holidays.size + 8; d++) {
    const start = today + d * DAY * 60_000;
    const next = ranges(start)
      .map(({ s }) => instantOf(hours.timezone, start + s * 60_000))
      .filter((t) => t > now.getTime());
    if (next.length) return { online: false, nextOpenAt: new Date(Math.min(...next)).toISOString() };
  }
  return { online: false, nextOpenAt: null };
}
