import type { ReactNode } from 'react';
import type { Ok } from '../api/client.ts';
import { Empty, label, When } from '../ui/index.tsx';

// Audit entries as people read them: who (a member's name), what (a ticket's #number, an intent's
// name, an article's title), and each change in words: times as dates, business hours as a
// timetable, lists and settings as phrases. Ids, JSON and ISO strings are never shown.

export type AuditEntry = Ok<'/api/v1/admin/audit', 'get'>['items'][number];

/** `withTarget`: name the entry's target (the audit log); a ticket's own trail need not. */
export function AuditTrail({ entries, withTarget = false }: { entries: AuditEntry[]; withTarget?: boolean }) {
  if (entries.length === 0) return <Empty>No change yet.</Empty>;
  return (
    <ol className="trail">
      {entries.map((a) => (
        <li key={a.id}>
          <When iso={a.createdAt} /> · <span className="what">{actionText(a.action)}</span>
          {withTarget && <> · {targetText(a)}</>} · by {a.actorName}
          {Object.keys(a.changes).length > 0 && (
            <ul>
              {Object.entries(a.changes).map(([k, c]) => (
                <li key={k}>
                  <span className="change-key">{fieldText(k)}:</span> {readable(c.from, a.names, k)} →{' '}
                  {readable(c.to, a.names, k)}
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  );
}

/** "ticket.updated" -> "Ticket updated", "widget_key.rotated" -> "Widget key rotated". */
export const actionText = (action: string) => label(action.replace('.', ' '));

const TARGETS: Record<string, string> = {
  ticket: 'ticket',
  intent: 'intent',
  article: 'help article',
  integration: 'integration',
  saved_reply: 'saved reply',
  member: 'member',
  tenant: 'team settings',
  example: 'taught example',
};
/** The target types the service names (shared/data/audit.ts); others never carry a name. */
const NAMED = new Set(['ticket', 'intent', 'article', 'integration', 'saved_reply', 'member']);

/** "Ticket #2", "intent order_status", "help article “Returns”"; a target gone since says so. */
function targetText(a: AuditEntry) {
  const kind = TARGETS[a.target.type] ?? label(a.target.type).toLowerCase();
  if (a.target.type === 'tenant') return 'team settings';
  // Only these are named by the service: a missing name means the target is gone. A taught example
  // or an erased customer's reference has no name to read, and is not gone for that.
  if (!a.targetName)
    return NAMED.has(a.target.type)
      ? `a ${kind} since removed`
      : a.target.type === 'customer'
        ? `a customer (reference ${a.target.id})`
        : `a ${kind}`;
  if (a.target.type === 'ticket') return `ticket ${a.targetName}`;
  return `${kind} “${a.targetName}”`;
}

const FIELDS: Record<string, string> = {
  assigneeId: 'Assignee',
  userId: 'User',
  identitySecretCreatedAt: 'Identity secret made',
  widgetKeyCreatedAt: 'Widget key made',
  'config.businessHours': 'Business hours',
  'config.allowedOrigins': 'Allowed origins',
  'config.defaultPriority': 'Default priority',
  'config.confidenceThreshold': 'Confidence threshold',
  'config.widget': 'Widget',
  'config.identity': 'Verified customers',
};

/** A change's field: "config.businessHours" -> "Business hours", "firstResponseAt" -> "First response at". */
export function fieldText(key: string): string {
  if (FIELDS[key]) return FIELDS[key];
  const last = key
    .replace(/^config\./, '')
    .split('.')
    .map(words)
    .join(' › ');
  return last.charAt(0).toUpperCase() + last.slice(1);
}
const words = (k: string) =>
  k
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;
const DAY = /^\d{4}-\d\d-\d\d$/;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

interface Hours {
  timezone: string;
  weekly: Partial<Record<(typeof WEEKDAYS)[number], [string, string][]>>;
  holidays?: string[];
}
const isHours = (v: object): v is Hours => 'timezone' in v && 'weekly' in v && typeof (v as Hours).weekly === 'object';

/** "Mon–Fri 09:00–17:00, Sat 10:00–14:00 (Europe/Berlin); closed 25 Dec 2026". */
export function hoursText(h: Hours): string {
  const day = (d: (typeof WEEKDAYS)[number]) => (h.weekly[d] ?? []).map(([a, b]) => `${a}–${b}`).join(', ');
  const runs: string[] = [];
  for (let i = 0; i < 7; ) {
    const text = day(WEEKDAYS[i]!);
    let j = i;
    while (j + 1 < 7 && day(WEEKDAYS[j + 1]!) === text) j++;
    if (text) runs.push(`${label(WEEKDAYS[i]!)}${j > i ? `–${label(WEEKDAYS[j]!)}` : ''} ${text}`);
    i = j + 1;
  }
  const holidays = h.holidays?.length
    ? `; closed ${h.holidays.map((d) => dayFormat.format(new Date(`${d}T00:00:00Z`))).join(', ')}`
    : '';
  return `${runs.length ? runs.join(', ') : 'no hours'} (${h.timezone})${holidays}`;
}

// Fields whose values are words of the service (a status, a priority, a role): read as labels. Any
// other text (an intent's name, a title) is shown as it was written.
const WORDS = /(^|\.)(status|priority|defaultPriority|role|action|category|position)$/;

/** Any recorded value, in words. `names`: the members named by id in the entry; `key`: the field it is the value of. */
export function readable(v: unknown, names: Record<string, string> = {}, key = ''): ReactNode {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') {
    if (names[v]) return names[v];
    if (ISO.test(v)) return <When iso={v} />;
    if (DAY.test(v)) return dayFormat.format(new Date(`${v}T00:00:00Z`));
    return WORDS.test(key) && /^[a-z_]+$/.test(v) ? label(v) : v;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return 'none';
    return v.every((x) => typeof x === 'string' || typeof x === 'number')
      ? v.map((x) => (typeof x === 'string' && names[x]) || String(x)).join(', ')
      : `${v.length} ${v.length === 1 ? 'item' : 'items'}`;
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.truncated === true)
      return typeof o.items === 'number' ? `${o.items} items (too long to keep here)` : 'too long to keep here';
    if (isHours(o)) return hoursText(o);
    // A taught example's target: what it was taught to, by name.
    if (typeof o.intentId === 'string')
      return names[o.intentId] ? `the intent “${names[o.intentId]}”` : 'an intent since removed';
    if (typeof o.articleId === 'string')
      return names[o.articleId] ? `the help article “${names[o.articleId]}”` : 'a help article since removed';
    if (o.none === true) return 'nothing (left unanswered)';
    const parts = Object.entries(o).map(([k, x]) => (
      <span key={k}>
        {words(k)} {readable(x, names, k)}
      </span>
    ));
    if (parts.length === 0) return 'nothing';
    return parts.flatMap((p, i) => (i === 0 ? [p] : ['; ', p]));
  }
  return String(v);
}
