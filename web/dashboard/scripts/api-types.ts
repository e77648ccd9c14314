import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApi } from '#shared/edge/openapi.ts';

// Writes the API's OpenAPI document and the types generated from it (not committed): the
// dashboard's (src/api/schema.d.ts) and the widget's, of the chat API alone (web/widget/src/schema.d.ts).
// A schema change that breaks either fails its type check.

const API_DIR = fileURLToPath(new URL('../src/api/', import.meta.url));
const WIDGET_DIR = fileURLToPath(new URL('../../widget/src/', import.meta.url));
const HEADER = '// Generated from the OpenAPI document by web/dashboard/scripts/api-types.ts; do not edit.\n';

type Document = ReturnType<typeof buildOpenApi>;
const typesOf = async (document: Document) => `${HEADER}${astToString(await openapiTS(document as never))}`;

export async function writeApiTypes(): Promise<string> {
  const document = buildOpenApi();
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const target = join(API_DIR, 'schema.d.ts');
  await mkdir(dirname(target), { recursive: true });
  await writeIfChanged(join(API_DIR, 'openapi.json'), json);
  await writeIfChanged(target, await typesOf(document));
  const chat = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(([path]) => path.startsWith('/api/v1/chat/')),
  );
  await writeIfChanged(join(WIDGET_DIR, 'schema.d.ts'), await typesOf({ ...document, paths: chat }));
  return target;
}

// Unchanged files keep their timestamps, so watchers and tsc's incremental state stay quiet.
async function writeIfChanged(path: string, text: string) {
  const old = await readFile(path, 'utf8').catch(() => null);
  if (old !== text) await writeFile(path, text);
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`wrote ${await writeApiTypes()}`);
