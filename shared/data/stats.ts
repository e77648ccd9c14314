import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys, statsDayRange } from './keys.ts';

// /stats reads counters only: the per-day shards of a date range (one Query) and the tenant's
// COUNTERS item (one GetItem). Their cost depends on the number of days, never on the data volume.

export type DayCounters = Record<string, number>;

export const statsRepo = {
  /** Every shard item of every day in [from, to]; sk BETWEEN DAY#from and DAY#to#~. */
  async days(tenantId: string, from: string, to: string): Promise<DayCounters[]> {
    const range = statsDayRange(tenantId, from, to);
    const out: DayCounters[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      // A year of 8 shards fits one response; the loop only guards the 1 MB page limit.
      const r = await db.send(new QueryCommand({
        TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': range.pk, ':a': range.skFrom, ':b': range.skTo },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }));
      for (const item of r.Items ?? []) {
        out.push(Object.fromEntries(Object.entries(item).filter(([, v]) => typeof v === 'number')) as DayCounters);
      }
      start = r.LastEvaluatedKey;
    } while (start);
    return out;
  },

  async openTickets(tenantId: string): Promise<number> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.counters(tenantId) }));
    return typeof r.Item?.openTickets === 'number' ? r.Item.openTickets : 0;
  },
};
