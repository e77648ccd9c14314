import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys, statsDayRange } from './keys.ts';

// /stats reads counters only: the per-day shards of a date range and the tenant's TOTAL counters,
// in one Query. Its cost depends on the number of days, never on the data volume.

export type DayCounters = Record<string, number>;

export const statsRepo = {
  /** Every shard item of every day in [from, to], and the open-ticket count: one Query. */
  async read(tenantId: string, from: string, to: string): Promise<{ days: DayCounters[]; openTickets: number }> {
    const range = statsDayRange(tenantId, from, to);
    const out: DayCounters[] = [];
    const totalSk = keys.counters(tenantId).sk;
    let openTickets = 0;
    let start: Record<string, unknown> | undefined;
    do {
      // A year of 8 shards fits one response; the loop only guards the 1 MB page limit.
      const r = await db.send(new QueryCommand({
        TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': range.pk, ':a': range.skFrom, ':b': range.skTo },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }));
      for (const item of r.Items ?? []) {
        if (item.sk === totalSk) { openTickets = typeof item.openTickets === 'number' ? item.openTickets : 0; continue; }
        if ((item.sk as string).slice(4, 14) > range.lastDay) continue; // sk is DAY#yyyy-mm-dd#shard
        out.push(Object.fromEntries(Object.entries(item).filter(([, v]) => typeof v === 'number')) as DayCounters);
      }
      start = r.LastEvaluatedKey;
    } while (start);
    return { days: out, openTickets };
  },
};
