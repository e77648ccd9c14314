import { queryAll } from './lists.ts';
import { keys, statsDayRange, type Key } from './keys.ts';
import type { TxItem } from './tx.ts';

// /stats reads counters only: the per-day shards of a date range and the tenant's TOTAL counters,
// in one Query. Its cost depends on the number of days, never on the data volume.

/** One shard's counters of one day; `day` is YYYY-MM-DD. `labels`: the strings kept beside them (article titles). */
export interface DayCounters {
  day: string;
  counts: Record<string, number>;
  labels?: Record<string, string>;
}

/**
 * Per-day stats are split over shards so that concurrent messages of a busy tenant do not all
 * queue on one item. Every /stats read takes days x shards items, so the count is kept small: a
 * busy tenant's read must cost what a quiet tenant's does (`npm run bench` compares the two).
 * The hit counters of intents and articles are sharded the same way.
 */
export const STATS_SHARDS = 2;
export const shardOf = (seed: string) => {
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) | 0;
  return Math.abs(h) % STATS_SHARDS;
};

/** Every shard of a hit-counter item: the keys the reads sum. */
export const hitShardKeys = (key: Key): Key[] =>
  Array.from({ length: STATS_SHARDS }, (_, shard) => ({ pk: key.pk, sk: `${key.sk}#${shard}` }));

/** One hit of `id` on a shard of a hit-counter item (intents', articles'); the reads sum the shards. */
export const hitAdd = (key: Key, id: string, seed: string): TxItem => ({
  Update: {
    Key: { pk: key.pk, sk: `${key.sk}#${shardOf(seed)}` },
    UpdateExpression: 'ADD #h :one',
    ExpressionAttributeNames: { '#h': `h_${id}` },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/** The stats day (UTC) of an ISO timestamp. */
export const utcDay = (iso: string) => iso.slice(0, 10);

export const statsRepo = {
  /** Every shard item of every day in [from, to], and the open-ticket count: one Query. */
  async read(tenantId: string, from: string, to: string): Promise<{ days: DayCounters[]; openTickets: number }> {
    const range = statsDayRange(tenantId, from, to);
    const totalSk = keys.counters(tenantId).sk;
    // A year of shards fits one response; queryAll only pages past 1 MB.
    const items = await queryAll({
      partition: { name: 'pk', value: range.pk },
      sk: { between: [range.skFrom, range.skTo] },
    });
    const out: DayCounters[] = [];
    let openTickets = 0;
    for (const item of items) {
      if (item.sk === totalSk) {
        openTickets = typeof item.openTickets === 'number' ? item.openTickets : 0;
        continue;
      }
      if ((item.sk as string).slice(4, 14) > range.lastDay) continue; // sk is DAY#yyyy-mm-dd#shard
      const counts = Object.fromEntries(Object.entries(item).filter(([, v]) => typeof v === 'number')) as Record<
        string,
        number
      >;
      const labels = Object.fromEntries(
        Object.entries(item).filter(([k, v]) => k.startsWith('t_') && typeof v === 'string'),
      ) as Record<string, string>;
      out.push({ day: (item.sk as string).slice(4, 14), counts, labels });
    }
    return { days: out, openTickets };
  },

  tx: {
    /**
     * Adds to a day's counters. Counter names are fixed words, `i_<intent name>` (names match
     * ^[a-z][a-z0-9_]*$) or `a_<article id>`. `labels` are strings kept beside the counters
     * (`t_<article id>`: the article's title when it answered), so that /stats names what it
     * counts without reading the articles.
     */
    addDay(
      tenantId: string,
      day: string,
      seed: string,
      add: Record<string, number>,
      labels: Record<string, string> = {},
    ): TxItem {
      const key = keys.statsDay(tenantId, day);
      const entries = Object.entries(add).filter(([, v]) => v !== 0);
      const sets = Object.entries(labels);
      return {
        Update: {
          Key: { pk: key.pk, sk: `${key.sk}#${shardOf(seed)}` },
          UpdateExpression:
            `SET #day = :day${sets.map((_, i) => `, #l${i} = :l${i}`).join('')}` +
            `${entries.length ? ` ADD ${entries.map((_, i) => `#c${i} :v${i}`).join(', ')}` : ''}`,
          ExpressionAttributeNames: {
            '#day': 'day',
            ...Object.fromEntries(entries.map(([k], i) => [`#c${i}`, k])),
            ...Object.fromEntries(sets.map(([k], i) => [`#l${i}`, k])),
          },
          ExpressionAttributeValues: {
            ':day': day,
            ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
            ...Object.fromEntries(sets.map(([, v], i) => [`:l${i}`, v])),
          },
        },
      };
    },

    /** Tenant-wide counters that are "now" rather than per day (open tickets). */
    addTotals(tenantId: string, add: { openTickets: number }): TxItem {
      return {
        Update: {
          Key: keys.counters(tenantId),
          UpdateExpression: 'ADD openTickets :n',
          ExpressionAttributeValues: { ':n': add.openTickets },
        },
      };
    },
  },
};
