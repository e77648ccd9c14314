import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Where the system's Chromium is (Debian's `chromium` package): the browser tests and the widget
// benchmark drive it with playwright-core, never a downloaded browser.

export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  try {
    const found = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    /* not on PATH */
  }
  throw new Error(
    'The browser tests need Chromium: install it with `apt-get install -y chromium` (Debian), or set CHROMIUM_PATH to a Chromium binary.',
  );
}
