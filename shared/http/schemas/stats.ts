import * as z from 'zod';
import { ConversationSummary } from './conversations.ts';

const isRealDay = (s: string) => {
  const d = new Date(`${s}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};
/** A calendar day, YYYY-MM-DD (UTC); 2026-02-30 is refused. */
export const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine(isRealDay, 'must be a real calendar date').meta({ format: 'date' });

/** Defaults (today and the 29 days before) and the 366-day bound are applied by the domain. */
export const StatsQuery = z.strictObject({ from: Day.optional(), to: Day.optional() });

export const Stats = z.object({
  period: z.object({ from: Day, to: Day }),
  kpis: z.object({
    conversations: z.number().int(), messages: z.number().int(), escalations: z.number().int(),
    escalationRate: z.number().min(0).max(1), openTickets: z.number().int().min(0),
    avgConfidence: z.number().min(0).max(1).nullable(), fallbackRate: z.number().min(0).max(1),
  }),
  topIntents: z.array(z.object({ intent: z.string(), count: z.number().int() })).max(10),
  recentConversations: z.array(ConversationSummary).max(10),
});
