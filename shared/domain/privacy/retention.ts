import { logger } from '#shared/core/log.ts';
import { retentionRepo } from '#shared/data/retention.ts';
import { TTL_ATTRIBUTE } from '#shared/data/table.ts';
import { clock } from '#shared/core/clock.ts';

// The retention job, run daily: for each tenant with `retention.conversationDays`, the
// conversations last active before the cutoff and without an unclosed ticket are stamped with the
// table's TTL attribute, and DynamoDB's TTL removes them (the local runtime's sweeper does the same).

const DAY_MS = 86_400_000;
const PAGE = 100;

/** Stamps what has outlived its tenant's retention; returns how many conversations were stamped. */
export async function runRetention(now = clock.date()): Promise<{ tenants: number; stamped: number }> {
  const tenants = await retentionRepo.tenants();
  let stamped = 0;
  for (const { tenantId, days } of tenants) {
    const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await retentionRepo.createdBefore(tenantId, cutoff, PAGE, start);
      // Read from the index: skip at once what is stamped already, still active or has a ticket open.
      const due = page.items.filter((c) => c.updatedAt < cutoff && c.unclosedTickets === 0 && !(TTL_ATTRIBUTE in c));
      for (const c of due) if (await retentionRepo.expire(tenantId, c.id, cutoff, days * DAY_MS)) stamped++;
      start = page.next;
    } while (start);
  }
  logger.info('retention run', { tenants: tenants.length, stamped });
  return { tenants: tenants.length, stamped };
}
