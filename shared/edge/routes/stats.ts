import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { ConversationSummary } from './common.ts';

const isRealDay = (s: string) => {
  const d = new Date(`${s}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};
/** A calendar day, YYYY-MM-DD (UTC); 2026-02-30 is refused. */
export const Day = z
  .string()
  .check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD'),
    z.refine(isRealDay, 'must be a real calendar date'),
    z.meta({ format: 'date' }),
  );

/** Defaults (today and the 29 days before) and the 366-day bound are applied by the domain. */
export const StatsQuery = z.strictObject({ from: z.optional(Day), to: z.optional(Day) });

const int = () => z.number().check(z.int());
const fraction = () => z.number().check(z.gte(0), z.lte(1));
export const Stats = z.object({
  period: z.object({ from: Day, to: Day }),
  kpis: z.object({
    conversations: int(),
    messages: int(),
    escalations: int(),
    escalationRate: fraction(),
    openTickets: int().check(z.gte(0)),
    avgConfidence: z.nullable(fraction()),
    fallbackRate: fraction(),
    fallbacks: int().check(z.describe('fallback replies in the period')),
    knowledgeAnswers: int().check(z.describe('messages answered from a help article in the period')),
    avgFirstResponseSeconds: z
      .nullable(z.number())
      .check(z.describe('tickets that got their first agent message in the period')),
    avgResolutionSeconds: z
      .nullable(z.number())
      .check(z.describe('tickets resolved in the period, from their creation')),
    csat: z.nullable(z.number()).check(z.describe('mean rating score of ratings given in the period')),
    ratings: int(),
    assistantResolutions: int().check(
      z.describe(
        'conversations of the period resolved by the assistant: 30 minutes after their last message, ' +
          'without a ticket, with at least one answer that was not a fallback and no rating under 3 (counted by a job every 10 minutes, so within an hour)',
      ),
    ),
    assistantResolutionRate: fraction().check(z.describe('assistantResolutions / conversations (0 when none)')),
  }),
  series: z
    .array(z.object({ date: Day, conversations: int(), messages: int(), escalations: int(), fallbacks: int() }))
    .check(z.describe('one entry per day of the period, oldest first')),
  topIntents: z.array(z.object({ intent: z.string(), count: int() })).check(z.maxLength(10)),
  topArticles: z
    .array(z.object({ articleId: z.string(), title: z.string(), count: int() }))
    .check(
      z.maxLength(10),
      z.describe(
        'the articles that answered most in the period; the title is the one the article had when it last answered',
      ),
    ),
  recentConversations: z.array(ConversationSummary).check(z.maxLength(10)),
});

export const getStats = declareAdmin('GET', '/stats', 'get-stats', 'viewer', {
  table: 'read',
  query: StatsQuery,
  response: Stats,
  status: 200,
  summary: 'KPIs of a period',
  description:
    '`from` and `to` are UTC days (YYYY-MM-DD), inclusive; default today and the 29 days before; at most 366 days. ' +
    'Read from per-day counters: the cost does not grow with the number of conversations.',
});

export const routes = [getStats];
