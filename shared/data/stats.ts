import { queryAll } from './lists.ts';
import { keys, statsDayRange } from './keys.ts';

// /stats reads counters only: the per-day shards of a date range and the tenant's TOTAL counters,
// in one Query. Its cost depends on the number of days, never on the data volume.

/** One shard's counters of one day; `day` is YYYY-MM-DD. `labels`: the strings kept beside them (article titles). */
export interface DayCounters { day: string; counts: Record<string, number>; labels?: Record<string, string> }

export const statsRepo = {
  /** Every shard item of every day in [from, to], and the open-ticket count: one Query. */
  async read(tenantId: string, from: string, to: string): Promise<{ days: DayCounters[]; openTickets: number }> {
    const range = statsDayRange(tenantId, from, to);
    const totalSk = keys.counters(tenantId).sk;
    // A year of shards fits one response; queryAll only pages past 1 MB.
    const items = await queryAll({ partition: { name: 'pk', value: range.pk }, sk: { between: [range.skFrom, range.skTo] } });
    const out: DayCounters[] = [];
    let openTickets = 0;
    for (const item of items) {
      if (item.sk === totalSk) { openTickets = typeof item.openTickets === 'number' ? item.openTickets : 0; continue; }
      if ((item.sk as string).slice(4, 14) > range.lastDay) continue; // sk is DAY#yyyy-mm-dd#shard
      const counts = Object.fromEntries(Object.entries(item).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
      const labels = Object.fromEntries(Object.entries(item).filter(([k, v]) => k.startsWith('t_') && typeof v === 'string')) as Record<string, string>;
      out.push({ day: (item.sk as string).slice(4, 14), counts, labels });
    }
    return { days: out, openTickets };
  },
};
