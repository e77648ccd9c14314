import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { chromiumPath } from './chromium.ts';

export { chromiumPath };

// Headless Chromium from the system (Debian's `chromium` package), driven by playwright-core:
// never a downloaded browser.

export const launch = (): Promise<Browser> =>
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });

export const hostUrl = () => inject('hostUrl');

const SHOTS = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

/** Saves a screenshot for people to look at (never compared by the tests). */
export async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}.png`, animations: 'disabled', caret: 'hide' });
}

export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce', ...options });
  const page = await context.newPage();
  // What the widget logs is printed with the test output: a refused origin explains itself there.
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}

/** The demo shop with a tenant's widget. */
export const shopUrl = (widgetKey: string) => `${hostUrl()}/?widgetKey=${encodeURIComponent(widgetKey)}`;

declare global {
  interface Window { SupportWidget?: { open(): void; close(): void; destroy(): void } }
}

export interface Pages { url: string; stop(): Promise<void> }

/**
 * Serves the given HTML pages by path from 127.0.0.1 (a real loopback origin, as Chromium's
 * local-network checks require for a page that calls the local API), without any CSP.
 */
export async function servePages(pages: Record<string, string>): Promise<Pages> {
  const server = createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://localhost').pathname];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    stop: () => { server.closeAllConnections(); return new Promise<void>((resolve) => server.close(() => resolve())); },
  };
}
