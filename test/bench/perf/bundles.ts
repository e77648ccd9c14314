import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { routes } from '#shared/edge/routes/index.ts';
import { BUNDLE_ALIAS, BUNDLE_BANNER, BUNDLE_MAIN_FIELDS, BUNDLE_TARGET, RUNTIME_PROVIDED } from '#infra/bundling.ts';
import { ENCODER_PACKAGES } from '#infra/function.ts';
import { median } from './util.ts';

// Each function bundled as infra/function.ts has NodejsFunction bundle it (ESM, minified, node24,
// every module bundled but the encoder's runtime and the SDK clients the runtime provides, the createRequire banner, linked source maps
// without sources), then imported in a fresh Node.js process to time its init next to an empty
// handler's. The encoder's runtime is never in a bundle: the functions that embed carry its
// packages beside theirs (infra/function.ts encoderCopy) and import them on the first embedding.

const run = promisify(execFile);

/** esbuild's options as NodejsFunction bundles a function (infra/function.ts); add entryPoints, outdir, absWorkingDir. */
export const DEPLOYED_BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  mainFields: BUNDLE_MAIN_FIELDS,
  banner: { js: BUNDLE_BANNER },
  alias: BUNDLE_ALIAS,
  outExtension: { '.js': '.mjs' },
  logLevel: 'silent',
  external: [...ENCODER_PACKAGES, ...RUNTIME_PROVIDED],
};

/** Bytes of every file under `dir`. */
const treeBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? treeBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );

/** The encoder's runtime packages as the functions that embed carry them beside their bundle (the model's files apart). */
export const encoderRuntimeBytes = (root: string) =>
  ENCODER_PACKAGES.reduce((n, p) => n + treeBytes(join(root, 'node_modules', p)), 0);

export interface BundleResult {
  handler: string;
  bytes: number;
  initMs: number;
  initOverEmptyMs: number;
}

/** Median ms of `import(file)` measured inside `runs` fresh processes (as deployed: --enable-source-maps). */
async function initTime(file: string, env: NodeJS.ProcessEnv, runs: number): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
      env,
      timeout: 30_000,
    });
    times.push(Number(stdout));
  }
  return median(times);
}

export async function benchBundles(
  root: string,
  runs = 5,
): Promise<{ empty: { bytes: number; initMs: number }; bundles: BundleResult[] }> {
  const out = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const handlers = [...new Set(routes.map((r) => r.handler))].filter((h) =>
      existsSync(join(root, 'functions', `${h}.ts`)),
    );
    const entryPoints = Object.fromEntries(handlers.map((h) => [h, join(root, 'functions', `${h}.ts`)]));
    await build({ ...DEPLOYED_BUNDLE, entryPoints, outdir: join(out, 'fn'), absWorkingDir: root });
    const emptySrc = join(out, 'empty.ts');
    writeFileSync(emptySrc, 'export const handler = async () => ({ statusCode: 200, body: "{}" });\n');
    await build({ ...DEPLOYED_BUNDLE, entryPoints: { empty: emptySrc }, outdir: join(out, 'fn'), absWorkingDir: root });

    // What Lambda sets; the table is never reached at import time.
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      AWS_REGION: 'us-east-1',
      TABLE_NAME: 'bench',
      CURSOR_SECRET: 'bench',
      POWERTOOLS_SERVICE_NAME: 'support-assistant',
      POWERTOOLS_METRICS_NAMESPACE: 'SupportAssistant',
      POWERTOOLS_DEV: 'false',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    };
    const file = (h: string) => join(out, 'fn', `${h}.mjs`);
    const emptyInit = await initTime(file('empty'), env, runs);
    const bundles: BundleResult[] = [];
    for (const h of handlers) {
      const initMs = await initTime(file(h), env, runs);
      bundles.push({ handler: h, bytes: statSync(file(h)).size, initMs, initOverEmptyMs: initMs - emptyInit });
    }
    return { empty: { bytes: statSync(file('empty')).size, initMs: emptyInit }, bundles };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
