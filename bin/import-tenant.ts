import { readFileSync } from 'node:fs';
import { importTenant } from '#shared/domain/privacy/portability.ts';

// `TABLE_NAME=... npm run import-tenant -- <file.jsonl> <owner sub> [<owner email>]`: a fresh tenant
// made from an export, owned by that user; prints its id and its new widget key (shown only here).

const [file, sub, email] = process.argv.slice(2);
if (!file || !sub) {
  console.error('usage: npm run import-tenant -- <tenant.jsonl> <owner sub> [<owner email>]');
  process.exit(2);
}
const r = await importTenant(readFileSync(file, 'utf8').split('\n'), { sub, email: email ?? null });
console.log(JSON.stringify(r));
