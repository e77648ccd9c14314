import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApi } from '#shared/edge/openapi.ts';

// Writes the API's OpenAPI document and the dashboard's types generated from it
// (src/api/schema.d.ts, not committed): a schema change that breaks the dashboard fails its type check.

const API_DIR = fileURLToPath(new URL('../src/api/', import.meta.url));

export async function writeApiTypes(): Promise<string> {
  const document = buildOpenApi();
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const types = `// Generated from the OpenAPI document by web/dashboard/scripts/api-types.ts; do not edit.\n${astToString(await openapiTS(document as never))}`;
  const target = join(API_DIR, 'schema.d.ts');
  await mkdir(dirname(target), { recursive: true });
  await writeIfChanged(join(API_DIR, 'openapi.json'), json);
  await writeIfChanged(target, types);
  return target;
}

// Unchanged files keep their timestamps, so watchers and tsc's incremental state stay quiet.
async function writeIfChanged(path: string, text: string) {
  const old = await readFile(path, 'utf8').catch(() => null);
  if (old !== text) await writeFile(path, text);
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`wrote ${await writeApiTypes()}`);
