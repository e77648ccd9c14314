import { numberOldTickets } from '#shared/domain/handoff/ticket-numbers.ts';

// One-off, after deploying ticket numbers: `TABLE_NAME=... npm run number-tickets -- <tenantId>...`
// gives the tenants' older tickets their numbers in creation order (new tickets already follow them).

const tenants = process.argv.slice(2);
if (tenants.length === 0) {
  console.error('usage: npm run number-tickets -- <tenantId> [<tenantId>...]');
  process.exit(2);
}
for (const tenantId of tenants) {
  const r = await numberOldTickets(tenantId);
  console.log(`${tenantId}: numbered ${r.numbered} of ${r.total} tickets`);
}
