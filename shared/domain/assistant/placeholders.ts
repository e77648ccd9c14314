import type { Intent } from '#shared/data/intents.ts';
import { templateNames } from '#shared/nlu/index.ts';
import {
  BusinessHoursSchema,
  WEEKDAYS,
  openState,
  type BusinessHours,
  type Weekday,
} from '#shared/domain/tenants/business-hours.ts';
import { emailSettings } from '#shared/domain/tenants/email-config.ts';
import { inboundAddress } from '#shared/domain/tenants/slug.ts';

// Placeholders an intent's reply may take from the tenant's settings (docs/API.md, Placeholders
// from settings). A placeholder without a value makes the answer fall back: a reply never shows a
// hole, nor a value the team never set (no hours set is "always open" for the widget, but the
// assistant does not tell customers so on its own).

export const SETTINGS_PLACEHOLDERS = ['hours', 'openNow', 'nextOpen', 'contactEmail'] as const;

const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** "Tuesday to Saturday 10:00 to 18:00, Sunday 11:00 to 15:00 (Europe/Berlin time)": days with the same hours run together. */
export function weekHours(hours: BusinessHours): string | null {
  const text = (d: Weekday) => (hours.weekly[d] ?? []).map(([a, b]) => `${a} to ${b}`).join(' and ');
  const runs: Array<{ from: Weekday; to: Weekday; text: string }> = [];
  for (const d of WEEKDAYS) {
    const t = text(d);
    const last = runs.at(-1);
    if (t && last && last.text === t && WEEKDAYS.indexOf(last.to) === WEEKDAYS.indexOf(d) - 1) last.to = d;
    else if (t) runs.push({ from: d, to: d, text: t });
  }
  if (runs.length === 0) return null;
  const days = (r: (typeof runs)[number]) =>
    r.from === r.to
      ? DAY_NAMES[r.from]
      : WEEKDAYS.indexOf(r.to) - WEEKDAYS.indexOf(r.from) === 1
        ? `${DAY_NAMES[r.from]} and ${DAY_NAMES[r.to]}`
        : `${DAY_NAMES[r.from]} to ${DAY_NAMES[r.to]}`;
  return `${runs.map((r) => `${days(r)} ${r.text}`).join(', ')} (${hours.timezone} time)`;
}

/** "Tuesday at 10:00" in the tenant's time zone. */
function wallTime(at: string, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.weekday} at ${parts.hour}:${parts.minute}`;
}

/** The settings' values for the placeholders, each only when the settings give one. */
export function settingsValues(
  tenant: { config?: Record<string, unknown>; slug?: string },
  now: Date,
): Record<string, string> {
  const config = tenant.config ?? {};
  const values: Record<string, string> = {};
  const parsed = config.businessHours === undefined ? null : BusinessHoursSchema.safeParse(config.businessHours);
  if (parsed?.success) {
    const hours = parsed.data as BusinessHours;
    const week = weekHours(hours);
    if (week) values.hours = week;
    const state = openState(hours, now);
    values.openNow = state.online ? 'open' : 'closed';
    if (!state.online && state.nextOpenAt) values.nextOpen = wallTime(state.nextOpenAt, hours.timezone);
  }
  const email = emailSettings(config).fromAddress ?? (tenant.slug ? inboundAddress(tenant.slug) : null);
  if (email) values.contactEmail = email;
  return values;
}

/**
 * The intent with its settings placeholders filled in (the ones that name an entity are left for
 * the entities); null when one of them has no value, so that the answer falls back.
 */
export function withSettings<T extends Pick<Intent, 'response' | 'entities'>>(
  intent: T,
  values: Record<string, string>,
): T | null {
  const entities = new Set(intent.entities.map((e) => e.name));
  const wanted = templateNames(intent.response).filter(
    (n) => !entities.has(n) && (SETTINGS_PLACEHOLDERS as readonly string[]).includes(n),
  );
  if (wanted.length === 0) return intent;
  if (wanted.some((n) => values[n] === undefined)) return null;
  const response = intent.response.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (m, n: string) =>
    wanted.includes(n) ? values[n]! : m,
  );
  return { ...intent, response };
}
