import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildSync, transformSync } from 'esbuild';

// Builds widget.js: one minified IIFE for ES2020 browsers, its two sheets minified and inlined as
// strings (adopted as constructed stylesheets at run time): launcher.css at load, styles.css (the
// panel's) when the panel is first built. Synchronous, so that the CDK asset's local bundling can
// call it too.

const HERE = fileURLToPath(new URL('.', import.meta.url));

export interface WidgetBuild {
  code: string;
  bytes: number;
  gzipBytes: number;
}

export function buildWidget(outdir?: string): WidgetBuild {
  const css = (file: string) =>
    transformSync(readFileSync(join(HERE, 'src', file), 'utf8'), {
      loader: 'css',
      minify: true,
      target: ['chrome90', 'firefox90', 'safari15'],
    }).code.trim();
  const result = buildSync({
    entryPoints: [join(HERE, 'src/main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    define: {
      __WIDGET_LAUNCHER_CSS__: JSON.stringify(css('launcher.css')),
      __WIDGET_PANEL_CSS__: JSON.stringify(css('styles.css')),
    },
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  if (outdir) {
    mkdirSync(outdir, { recursive: true });
    writeFileSync(join(outdir, 'widget.js'), code);
  }
  return { code, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).length };
}

// `tsx web/widget/build.ts [outdir]` builds to a folder (default web/widget/dist).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outdir = process.argv[2] ?? join(HERE, 'dist');
  const b = buildWidget(outdir);
  console.log(`${join(outdir, 'widget.js')}: ${b.bytes} bytes, ${b.gzipBytes} gzipped`);
}
