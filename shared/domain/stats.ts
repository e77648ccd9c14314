import { conversationsRepo } from '#shared/data/conversations.ts';
import { statsRepo, type DayCounters } from '#shared/data/stats.ts';
import { fieldError } from '#shared/core/errors.ts';
import { summary } from './conversations-admin.ts';

const DAY_MS = 86_400_000;
export const MAX_DAYS = 366;
export const DEFAULT_DAYS = 30;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/**
 * The inclusive UTC period of a /stats request. Defaults: `to` today, `from` 29 days before `to`
 * (so a lone `to` still gives 30 days). Pure: `now` is given.
 */
export function resolvePeriod(q: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const to = q.to ?? dayOf(now.getTime());
  const from = q.from ?? dayOf(msOf(to) - (DEFAULT_DAYS - 1) * DAY_MS);
  if (from > to) throw fieldError('from', 'must not be after to');
  const days = (msOf(to) - msOf(from)) / DAY_MS + 1;
  if (days > MAX_DAYS) throw fieldError('from', `the period is at most ${MAX_DAYS} days`);
  return { from, to };
}

/** KPIs and top intents from the summed day counters. Pure. */
export function aggregate(rows: DayCounters[], openTickets: number) {
  const sum: Record<string, number> = {};
  for (const row of rows) for (const [k, v] of Object.entries(row)) sum[k] = (sum[k] ?? 0) + v;
  const n = (k: string) => sum[k] ?? 0;
  const conversations = n('conversations');
  const messages = n('messages');
  const escalations = n('escalations');
  const topIntents = Object.entries(sum)
    .filter(([k, v]) => k.startsWith('i_') && v > 0 && k !== 'i_fallback')
    .map(([k, count]) => ({ intent: k.slice(2), count }))
    .sort((a, b) => b.count - a.count || a.intent.localeCompare(b.intent))
    .slice(0, 10);
  return {
    kpis: {
      conversations,
      messages,
      escalations,
      escalationRate: conversations ? Math.min(1, escalations / conversations) : 0,
      openTickets: Math.max(0, openTickets),
      avgConfidence: messages ? n('confidenceSum') / messages : null,
      fallbackRate: messages ? Math.min(1, n('fallbacks') / messages) : 0,
    },
    topIntents,
  };
}

export async function getStats(tenantId: string, q: { from?: string; to?: string }, now = new Date()) {
  const period = resolvePeriod(q, now);
  const [{ days: rows, openTickets }, recent] = await Promise.all([
    statsRepo.read(tenantId, period.from, period.to),
    conversationsRepo.recent(tenantId, 10),
  ]);
  return { period, ...aggregate(rows, openTickets), recentConversations: recent.map(summary) };
}
