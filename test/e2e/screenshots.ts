import { spawnSync } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumPath } from './chromium.ts';

// `npm run screenshots`: runs the browser tests that take the pictures the docs show (they save
// every screenshot to test/e2e/__screenshots__, which git ignores), then writes the curated set
// to docs/img/ as JPEG, encoded by Chromium itself. `-- --no-run` converts the last run's pictures.

/** docs/img/<name>.jpg <- test/e2e/__screenshots__/<shot>.png, and the test file that takes it. */
export const CURATED = [
  { name: 'widget-conversation', shot: 'conversation', file: 'widget.test.ts' },
  { name: 'widget-escalated', shot: 'escalated', file: 'widget.test.ts' },
  { name: 'widget-mobile', shot: 'mobile-360', file: 'widget.test.ts' },
  { name: 'widget-agent-typing', shot: 'team-tools-widget-agent-typing', file: 'dashboard-team-tools.test.ts' },
  { name: 'dashboard-inbox', shot: 'dashboard-inbox', file: 'dashboard.test.ts' },
  { name: 'dashboard-overview', shot: 'dashboard-overview', file: 'dashboard.test.ts' },
  { name: 'dashboard-ticket', shot: 'dashboard-ticket', file: 'dashboard.test.ts' },
  { name: 'dashboard-knowledge-try', shot: 'dashboard-knowledge-try', file: 'dashboard-knowledge.test.ts' },
  { name: 'dashboard-knowledge-editor', shot: 'dashboard-knowledge-editor', file: 'dashboard-knowledge.test.ts' },
  { name: 'dashboard-unanswered', shot: 'dashboard-unanswered', file: 'dashboard-teach.test.ts' },
  { name: 'dashboard-saved-reply-picker', shot: 'team-tools-picker', file: 'dashboard-team-tools.test.ts' },
  {
    name: 'dashboard-integration-deliveries',
    shot: 'dashboard-integration-deliveries',
    file: 'dashboard-integrations.test.ts',
  },
] as const;

/** JPEG quality: the text of a screen stays sharp, the file a fifth of the PNG's. */
const QUALITY = 60;
const SHOTS = fileURLToPath(new URL('./__screenshots__/', import.meta.url));
const OUT = fileURLToPath(new URL('../../docs/img/', import.meta.url));

/** A PNG's size, from its IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

async function main() {
  if (!process.argv.includes('--no-run')) {
    const files = [...new Set(CURATED.map((c) => `test/e2e/${c.file}`))];
    const run = spawnSync('npx', ['vitest', 'run', '--project', 'e2e', ...files], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error('the browser tests failed: no picture is written');
  }
  await mkdir(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    for (const c of CURATED) {
      const png = await readFile(`${SHOTS}${c.shot}.png`);
      const size = pngSize(png);
      await page.setViewportSize(size);
      await page.setContent(
        `<body style="margin:0"><img style="display:block" src="data:image/png;base64,${png.toString('base64')}"></body>`,
      );
      await page.screenshot({
        path: `${OUT}${c.name}.jpg`,
        type: 'jpeg',
        quality: QUALITY,
        clip: { x: 0, y: 0, ...size },
      });
      const kb = (n: number) => `${Math.round(n / 1024)} KB`;
      console.log(
        `docs/img/${c.name}.jpg  ${size.width}x${size.height}  ${kb(png.length)} -> ${kb((await stat(`${OUT}${c.name}.jpg`)).size)}`,
      );
    }
  } finally {
    await browser.close();
  }
}

await main();
