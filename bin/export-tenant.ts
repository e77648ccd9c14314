import { exportTenant } from '#shared/domain/privacy/portability.ts';

// `TABLE_NAME=... npm run export-tenant -- <tenantId> > tenant.jsonl`: the tenant's data as JSON
// lines (the first names the format and the tenant), read partition by partition.

const [tenantId] = process.argv.slice(2);
if (!tenantId) {
  console.error('usage: npm run export-tenant -- <tenantId> > tenant.jsonl');
  process.exit(2);
}
for await (const line of exportTenant(tenantId)) process.stdout.write(`${line}\n`);
