import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect, inject, onTestFinished } from 'vitest';
import { chromiumPath } from './chromium.ts';

export { chromiumPath };

// Headless Chromium from the system (Debian's `chromium` package), driven by playwright-core:
// never a downloaded browser. One runtime serves both the widget's tests (its demo shop on another
// origin) and the dashboard's (the built dashboard at `/`); see global-setup.ts.

export const launch = (): Promise<Browser> =>
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });

export const baseUrl = () => inject('baseUrl');
export const hostUrl = () => inject('hostUrl');

const SHOTS = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

/** Saves a screenshot in test/e2e/__screenshots__ (ignored by git) for people to look at, never compared by the tests; `npm run screenshots` copies the ones the docs show to docs/img/. */
export async function screenshot(page: Page, name: string, fullPage = true) {
  await mkdir(SHOTS, { recursive: true });
  // Spinners and caret blinks would make every run differ.
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage, animations: 'disabled', caret: 'hide' });
}

/** The viewport only: the widget floats over its host page. */
export const shot = (page: Page, name: string) => screenshot(page, name, false);

// The widget's pages.

export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    reducedMotion: 'reduce',
    ...options,
  });
  const page = await context.newPage();
  // What the widget logs is printed with the test output: a refused origin explains itself there.
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}

/** The demo shop with a tenant's widget. */
export const shopUrl = (widgetKey: string) => `${hostUrl()}/?widgetKey=${encodeURIComponent(widgetKey)}`;

declare global {
  interface Window {
    SupportWidget?: { open(): void; close(): void; destroy(): void };
  }
}

export interface Pages {
  url: string;
  stop(): Promise<void>;
}

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
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A host page of our own (no CSP), with the widget's tag and the given data-user-* attributes; served until the test ends. */
export async function hostPage(widgetKey: string, user: Record<string, string> = {}): Promise<string> {
  const attrs = Object.entries(user)
    .map(([k, v]) => ` data-user-${k}="${v}"`)
    .join('');
  const html = `<!doctype html><html lang="en"><head><title>Shop</title><meta name="viewport" content="width=device-width, initial-scale=1"></head><body><h1>A shop</h1>
    <script src="${baseUrl()}/widget.js" data-widget-key="${widgetKey}"${attrs} async></script></body></html>`;
  const pages = await servePages({ '/': html });
  onTestFinished(() => pages.stop());
  return pages.url;
}

// The dashboard's pages.

/** A page on the dashboard (relative URLs resolve against the runtime); any page error fails the test. */
export async function newDashboardPage(
  browser: Browser,
  { timezoneId = 'UTC' }: { timezoneId?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    baseURL: baseUrl(),
    locale: 'en-GB',
    timezoneId,
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => {
    throw new Error(`page error: ${e.message}`);
  });
  return { context, page };
}

let seq = 0;
/** A fresh email address, unique across runs. */
export const newEmail = (label: string) => `${label}-${Date.now().toString(36)}-${process.pid}-${seq++}@example.com`;

/** Signs in through the local issuer's page, as a person would. */
export async function signIn(page: Page, email: string) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/local-idp\/authorize/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/local-idp') && u.pathname !== '/callback');
}

/** No WCAG 2.2 A/AA violation on what the page shows now. */
export async function expectAccessible(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa']).analyze();
  const found = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found, `axe on ${what}`).toEqual([]);
}

/** Waits for the screen's heading and for its first load to end (a screen without one goes on at once). */
export async function screenReady(page: Page, heading: string | RegExp) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}

/** Waits for the screen's heading, then checks accessibility and saves a screenshot. */
export async function capture(page: Page, name: string, heading: string | RegExp) {
  await screenReady(page, heading);
  await expectAccessible(page, name);
  await screenshot(page, name);
}

/** The screen at 1280 px (checked by axe, saved as `name`), then at 360 px (`name-360`). */
export async function captureWidths(page: Page, name: string, heading: string | RegExp) {
  await screenReady(page, heading);
  await bothWidths(page, name);
}

/** The page as it is at 1280 px, then at 360 px (`name-360`): each checked by axe and saved; at 360 px
 * nothing may be wider than the phone (the page would scroll sideways). */
export async function bothWidths(page: Page, name: string) {
  await expectAccessible(page, name);
  await screenshot(page, name);
  await page.setViewportSize({ width: 360, height: 800 });
  try {
    await expectAccessible(page, `${name} at 360 px`);
    await screenshot(page, `${name}-360`);
    expect(await sidewaysScroll(page), `${name} at 360 px`).toBe('');
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

/** '' when the page fits its width; else its scroll width and the element reaching furthest right. */
export async function sidewaysScroll(page: Page): Promise<string> {
  return page.evaluate(() => {
    const width = document.scrollingElement!.scrollWidth;
    if (width <= window.innerWidth) return '';
    let worst = '';
    let right = window.innerWidth;
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > right) {
        right = r.right;
        worst = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} (${Math.round(r.right)} px)`;
      }
    }
    return `${width} px, widest ${worst}`;
  });
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { token?: string; widgetKey?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.widgetKey) headers['x-widget-key'] = opts.widgetKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl() + path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An access token for a user the local sign-in page makes of `email` (same sub). */
export async function tokenForEmail(email: string): Promise<string> {
  const { subForEmail } = await import('../../local/idp.ts');
  const r = await api<{ accessToken: string }>('POST', '/local-idp/token', {
    body: { sub: subForEmail(email), email },
  });
  return r.body.accessToken;
}

/** A new team: its owner's email (to sign in with) and token, and its widget key. */
export async function newTeam(label: string, tenantName: string) {
  const email = newEmail(label);
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName } });
  expect(onboard.status).toBe(201);
  return { email, token, widgetKey: onboard.body.widgetKey as string };
}

/** The customer on the demo shop with the widget open, one exchange, then asking for a person. */
export async function customerEscalates(page: Page, widgetKey: string) {
  await page.goto(shopUrl(widgetKey));
  await page.getByRole('button', { name: /^Open .*chat/ }).click();
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('my parcel is lost');
  await input.press('Enter');
  await page.locator('.msg-assistant .bubble').nth(1).waitFor();
  await page.getByRole('button', { name: 'Talk to a person' }).click();
  await page.getByRole('button', { name: 'Request a person' }).click();
  await page.locator('.ticket strong').waitFor();
  const stored = JSON.parse((await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), widgetKey))!) as {
    conversationId: string;
    ticketId: string;
  };
  return { conversationId: stored.conversationId, ticketId: stored.ticketId };
}
