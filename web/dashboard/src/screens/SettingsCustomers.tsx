import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ok, type Ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Confirm, CopyButton, Field, fieldErrorsOf, FormError, When } from '../ui/index.tsx';

// The settings about customers: the team's business hours and reply time (what the widget says), and
// verified visitor identity (whether it is required, and the secret the site signs with).

type Settings = Ok<'/api/v1/admin/settings', 'get'>;
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;
type Day = (typeof DAYS)[number][0];
type Range = [string, string];
type Week = Record<Day, Range[]>;
const MAX_RANGES = 3;

/**
 * The names ICU (so Chromium's Intl) still gives for zones IANA has renamed: its list and the
 * browser's own zone use them. The list offers the current names, as people know their city now.
 */
const RENAMED: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};
/** A zone by its current name, where this browser knows it (an older one may know only the old name). */
const current = (zone: string) => {
  const renamed = RENAMED[zone];
  if (!renamed) return zone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: renamed });
    return renamed;
  } catch {
    return zone;
  }
};
/** The browser's own zone, by its current name: a new team's business hours start in it. */
const browserZone = () => current(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');

/** The browser's IANA zones by their current names, sorted (UTC first: Chromium leaves it out of the list). */
function timeZones(chosen: string): string[] {
  const listed =
    (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  const named = [...new Set(listed.map(current))].sort();
  return [...new Set(['UTC', chosen, ...named].filter(Boolean))];
}

function hoursOf(s: Settings) {
  const h = obj(s.config.businessHours);
  const weekly = obj(h.weekly);
  const week = Object.fromEntries(
    DAYS.map(([d]) => [d, (Array.isArray(weekly[d]) ? (weekly[d] as Range[]) : []).map((r) => [r[0], r[1]] as Range)]),
  ) as Week;
  return {
    enabled: s.config.businessHours !== undefined && s.config.businessHours !== null,
    timezone: typeof h.timezone === 'string' ? h.timezone : browserZone(),
    week,
    holidays: (Array.isArray(h.holidays) ? (h.holidays as string[]) : []).join('\n'),
    replyTime: typeof obj(s.config.widget).replyTime === 'string' ? (obj(s.config.widget).replyTime as string) : '',
  };
}

/** One day of the week: its ranges, each with its own remove button, and an add button while there is room. */
function HoursDay({
  day: d,
  name,
  ranges,
  dayError,
  setRanges,
}: {
  day: Day;
  name: string;
  ranges: Range[];
  dayError: string;
  setRanges: (ranges: Range[]) => void;
}) {
  return (
    <fieldset className="hours-day" aria-describedby={dayError ? `err-${d}` : 'week-hint'}>
      <legend>{name}</legend>
      <div className="hours-ranges">
        {ranges.length === 0 && <span className="muted">Closed</span>}
        {ranges.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a range is its position in the day (controlled inputs, no state of their own)
          <div className="hours-range" key={i}>
            <label htmlFor={`h-${d}-${i}-from`} className="visually-hidden">
              {name}, range {i + 1}, opens
            </label>
            <input
              id={`h-${d}-${i}-from`}
              type="time"
              value={r[0]}
              aria-invalid={dayError ? true : undefined}
              onChange={(e) => setRanges(ranges.map((x, j) => (j === i ? [e.target.value, x[1]] : x)))}
            />
            <span aria-hidden="true">to</span>
            <label htmlFor={`h-${d}-${i}-to`} className="visually-hidden">
              {name}, range {i + 1}, closes
            </label>
            <input
              id={`h-${d}-${i}-to`}
              type="time"
              value={r[1]}
              aria-invalid={dayError ? true : undefined}
              onChange={(e) => setRanges(ranges.map((x, j) => (j === i ? [x[0], e.target.value] : x)))}
            />
            <button
              type="button"
              onClick={() => setRanges(ranges.filter((_, j) => j !== i))}
              aria-label={`Remove ${name} range ${i + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
        {ranges.length < MAX_RANGES && (
          <div>
            <button
              type="button"
              onClick={() => setRanges([...ranges, ranges.length ? ['13:00', '17:00'] : ['09:00', '17:00']])}
            >
              Add hours on {name}
            </button>
          </div>
        )}
        {dayError && (
          <p className="field-error" id={`err-${d}`}>
            {dayError}
          </p>
        )}
      </div>
    </fieldset>
  );
}

export function HoursForm({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [f, setF] = useState(() => hoursOf(settings));
  const setDay = (d: Day, ranges: Range[]) => setF((x) => ({ ...x, week: { ...x.week, [d]: ranges } }));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/admin/settings', {
          body: {
            config: {
              // Every day is sent (a closed one as []), so the merge patch replaces the week as shown.
              businessHours: f.enabled
                ? {
                    timezone: f.timezone,
                    weekly: f.week,
                    holidays: f.holidays
                      .split('\n')
                      .map((l) => l.trim())
                      .filter(Boolean),
                  }
                : null,
              widget: { replyTime: f.replyTime.trim() || null },
            },
          },
        }),
      ),
    onSuccess: (data) => {
      qc.setQueryData(['settings'], data);
    },
  });
  const errors = fieldErrorsOf(save.error);
  const at = (path: string) => errors[`config.${path}`];
  const under = (path: string) =>
    Object.entries(errors)
      .filter(([p]) => p.startsWith(`config.${path}.`))
      .map(([p, m]) => [p.slice(`config.${path}.`.length), m] as const);
  const holidayErrors = under('businessHours.holidays')
    .map(([i, m]) => `line ${Number(i) + 1}: ${m}`)
    .join('; ');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="hours-h">
      <h2 id="hours-h">Business hours</h2>
      <p className="muted">
        When the team is away, the widget says when it is back and asks the customer for an email address; tickets still
        open.
      </p>
      <Field
        label="Reply time"
        error={at('widget.replyTime')}
        hint={
          'The widget shows "Our team replies …" with it while the team is in, e.g. "usually within an hour". Empty: nothing is said.'
        }
      >
        {(p) => (
          <input
            {...p}
            value={f.replyTime}
            maxLength={80}
            onChange={(e) => setF((x) => ({ ...x, replyTime: e.target.value }))}
          />
        )}
      </Field>
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={f.enabled}
            onChange={(e) => setF((x) => ({ ...x, enabled: e.target.checked }))}
          />{' '}
          Keep business hours (off: always open)
        </label>
      </div>
      {f.enabled && (
        <>
          <Field
            label="Time zone"
            error={at('businessHours.timezone')}
            hint="The hours below are this zone's clock; daylight saving follows it."
          >
            {(p) => (
              <select {...p} value={f.timezone} onChange={(e) => setF((x) => ({ ...x, timezone: e.target.value }))}>
                {timeZones(f.timezone).map((z) => (
                  <option key={z} value={z}>
                    {z.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <p className="hint" id="week-hint">
            Up to 3 ranges a day. A range that ends before it starts runs past midnight (22:00 to 02:00).
          </p>
          {at('businessHours.weekly') && (
            <p className="field-error" role="alert">
              {at('businessHours.weekly')}
            </p>
          )}
          {DAYS.map(([d, name]) => (
            <HoursDay
              key={d}
              day={d}
              name={name}
              ranges={f.week[d]}
              dayError={under(`businessHours.weekly.${d}`)
                .map(([, m]) => m)
                .concat(at(`businessHours.weekly.${d}`) ?? [])
                .join('; ')}
              setRanges={(ranges) => setDay(d, ranges)}
            />
          ))}
          <Field
            label="Holidays"
            error={holidayErrors || at('businessHours.holidays')}
            hint="Closed all day: one date a line, like 2026-12-25 (at most 100)."
          >
            {(p) => (
              <textarea
                {...p}
                rows={3}
                value={f.holidays}
                onChange={(e) => setF((x) => ({ ...x, holidays: e.target.value }))}
              />
            )}
          </Field>
        </>
      )}
      <FormError error={save.error} />
      {save.isSuccess && (
        <p role="status" className="success">
          Saved. The widget shows it on its next load.
        </p>
      )}
      <button type="submit" className="primary" disabled={save.isPending}>
        Save business hours
      </button>
    </form>
  );
}

export function IdentityCard({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const identity = obj(settings.config.identity);
  const isAdmin = atLeast(member.role, 'admin');
  const [fresh, setFresh] = useState<{ secret: string; rotated: boolean } | null>(null);
  // Shown as asked at once; put back as it was if the server refuses.
  const [required, setRequired] = useState(identity.required === true);
  const toggle = useMutation({
    mutationFn: (on: boolean) =>
      ok(api.PUT('/api/v1/admin/settings', { body: { config: { identity: { required: on } } } })),
    onMutate: (on) => setRequired(on),
    onError: (_e, on) => setRequired(!on),
    onSuccess: (data) => {
      qc.setQueryData(['settings'], data);
    },
  });
  const rotate = async () => {
    const rotated = typeof identity.secret === 'string';
    const r = await ok(api.POST('/api/v1/admin/settings/identity-secret/rotate'));
    setFresh({ secret: r.secret, rotated });
    void qc.invalidateQueries({ queryKey: ['settings'] });
  };
  const errors = fieldErrorsOf(toggle.error);
  return (
    <section className="card" aria-labelledby="identity-h">
      <h2 id="identity-h">Verified customers</h2>
      <p>
        Your site's server signs each signed-in customer's id with this secret (HMAC-SHA256), and the widget passes id
        and signature on: the team then sees who the customer is, and the customer finds their conversations on any
        device.
      </p>
      {fresh ? (
        <div role="status">
          {/* Only a rotation replaces a secret: a first one has no old one to speak of. */}
          <p>
            <strong>
              {fresh.rotated ? 'The new secret, shown only now.' : 'Your identity secret, shown only now.'}
            </strong>{' '}
            Copy it to your site's server{fresh.rotated ? '; the old one stopped working.' : '.'}
          </p>
          <p>
            <code className="key secret">{fresh.secret}</code>
          </p>
          <CopyButton text={fresh.secret} label="Copy the secret" />
        </div>
      ) : typeof identity.secret === 'string' ? (
        <p>
          Current secret <code>{identity.secret}</code>
          {typeof identity.secretCreatedAt === 'string' && (
            <>
              , made <When iso={identity.secretCreatedAt} />
            </>
          )}
          . The full secret was shown once, when it was made.
        </p>
      ) : (
        <p className="muted">No secret yet: make one to verify customers.</p>
      )}
      {isAdmin ? (
        <>
          <Confirm
            trigger={
              <button type="button" className={typeof identity.secret === 'string' ? 'danger' : 'primary'}>
                {typeof identity.secret === 'string' ? 'Rotate the identity secret' : 'Make an identity secret'}
              </button>
            }
            title={typeof identity.secret === 'string' ? 'Rotate the identity secret?' : 'Make an identity secret?'}
            danger={typeof identity.secret === 'string'}
            body={
              <p>
                A new secret is made and shown once.{' '}
                {typeof identity.secret === 'string'
                  ? 'The current one stops verifying at once: signed-in customers are refused until your site signs with the new one.'
                  : ''}
              </p>
            }
            confirmLabel={typeof identity.secret === 'string' ? 'Rotate the secret' : 'Make the secret'}
            onConfirm={rotate}
          />
          <div className="field">
            <label>
              <input
                type="checkbox"
                checked={required}
                disabled={toggle.isPending}
                aria-describedby="required-hint"
                onChange={(e) => toggle.mutate(e.target.checked)}
              />{' '}
              Require verified customers
            </label>
            <p className="hint" id="required-hint">
              On: a chat message without a valid signature is refused; only signed-in customers of your site can chat.
            </p>
            {errors['config.identity.required'] && <p className="field-error">{errors['config.identity.required']}</p>}
          </div>
          <FormError error={toggle.error && !errors['config.identity.required'] ? toggle.error : null} />
          {toggle.isSuccess && (
            <p role="status" className="success">
              {required ? 'Verified customers are required now.' : 'Anyone on your site can chat now.'}
            </p>
          )}
        </>
      ) : (
        <p className="muted">Only an admin can change this.</p>
      )}
    </section>
  );
}
