import { conversationsRepo } from '#shared/data/conversations.ts';
import { statsRepo, type DayCounters } from '#shared/data/stats.ts';
import { fieldError } from '#shared/core/errors.ts';
import { summary } from '#shared/domain/handoff/conversations-admin.ts';
import { clock } from '#shared/core/clock.ts';

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

const SERIES = ['conversations', 'messages', 'escalations', 'fallbacks'] as const;
const mean = (sum: number, count: number) => (count > 0 ? sum / count : null);

/** KPIs, top intents and the daily series from the day counters of the period. Pure. */
export function aggregate(rows: DayCounters[], openTickets: number, period: { from: string; to: string }) {
  const sum: Record<string, number> = {};
  const byDay = new Map<string, Record<string, number>>();
  // An article's title as of the last day it answered in the period (rows come oldest day first).
  const titles = new Map<string, { day: string; title: string }>();
  for (const { day, counts, labels } of rows) {
    for (const [k, title] of Object.entries(labels ?? {})) {
      const seen = titles.get(k.slice(2));
      if (!seen || seen.day <= day) titles.set(k.slice(2), { day, title });
    }
    const d = byDay.get(day) ?? {};
    byDay.set(day, d);
    for (const [k, v] of Object.entries(counts)) {
      sum[k] = (sum[k] ?? 0) + v;
      if ((SERIES as readonly string[]).includes(k)) d[k] = (d[k] ?? 0) + v;
    }
  }
  const series: Array<{ date: string } & Record<(typeof SERIES)[number], number>> = [];
  for (let ms = msOf(period.from); ms <= msOf(period.to); ms += DAY_MS) {
    const date = dayOf(ms);
    const d = byDay.get(date) ?? {};
    series.push({
      date,
      conversations: d.conversations ?? 0,
      messages: d.messages ?? 0,
      escalations: d.escalations ?? 0,
      fallbacks: d.fallbacks ?? 0,
    });
  }
  const n = (k: string) => sum[k] ?? 0;
  const conversations = n('conversations');
  const messages = n('messages');
  const escalations = n('escalations');
  const topIntents = Object.entries(sum)
    .filter(([k, v]) => k.startsWith('i_') && v > 0 && k !== 'i_fallback')
    .map(([k, count]) => ({ intent: k.slice(2), count }))
    .sort((a, b) => b.count - a.count || a.intent.localeCompare(b.intent))
    .slice(0, 10);
  const topArticles = Object.entries(sum)
    .filter(([k, v]) => k.startsWith('a_') && v > 0)
    .map(([k, count]) => ({ articleId: k.slice(2), title: titles.get(k.slice(2))?.title ?? '', count }))
    .sort((a, b) => b.count - a.count || a.title.localeCompare(b.title) || a.articleId.localeCompare(b.articleId))
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
      fallbacks: Math.max(0, n('fallbacks')),
      knowledgeAnswers: Math.max(0, n('knowledgeAnswers')),
      avgFirstResponseSeconds: mean(n('firstResponseSecondsSum'), n('firstResponses')),
      avgResolutionSeconds: mean(n('resolutionSecondsSum'), n('resolutions')),
      csat: mean(n('ratingSum'), n('ratings')),
      ratings: Math.max(0, n('ratings')),
      assistantResolutions: Math.max(0, n('assistantResolutions')),
      assistantResolutionRate: conversations ? Math.min(1, Math.max(0, n('assistantResolutions')) / conversations) : 0,
    },
    topIntents,
    topArticles,
    series,
  };
}

export async function getStats(tenantId: string, q: { from?: string; to?: string }, now = clock.date()) {
  const period = resolvePeriod(q, now);
  const [{ days: rows, openTickets }, recent] = await Promise.all([
    statsRepo.read(tenantId, period.from, period.to),
    conversationsRepo.recent(tenantId, 10),
  ]);
  return { period, ...aggregate(rows, openTickets, period), recentConversations: recent.map(summary) };
}
