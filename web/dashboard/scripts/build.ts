import { fileURLToPath } from 'node:url';
import { writeApiTypes } from './api-types.ts';

// Builds the dashboard: API types from the OpenAPI document, then Vite. Used by `npm start`, the
// browser tests and the CDK stack (with the asset's output folder as argument).

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function buildDashboard(outDir?: string): Promise<void> {
  await writeApiTypes();
  const { build } = await import('vite');
  await build({
    configFile: `${ROOT}vite.config.ts`,
    logLevel: 'warn',
    ...(outDir ? { build: { outDir, emptyOutDir: true } } : {}),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await buildDashboard(process.argv[2]);
