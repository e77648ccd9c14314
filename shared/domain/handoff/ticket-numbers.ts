import { ticketsRepo } from '#shared/data/tickets.ts';

/**
 * Numbers the tickets made before ticket numbers existed, in creation order: the i-th oldest
 * ticket gets i. Those are exactly the oldest ones, since the first numbered ticket of a tenant
 * started its counter after the tickets it counted. Safe to run again: numbered tickets are
 * skipped, and each number's lookup item refuses a second owner.
 */
export async function numberOldTickets(tenantId: string): Promise<{ numbered: number; total: number }> {
  const all = await ticketsRepo.allOldestFirst(tenantId);
  let numbered = 0;
  for (const [i, t] of all.entries()) {
    if (t.number !== null) continue;
    await ticketsRepo.assignNumber(tenantId, t, i + 1);
    numbered++;
  }
  return { numbered, total: all.length };
}
