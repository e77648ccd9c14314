import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';

// Headless Chromium from the system (Debian's package), driven by playwright-core: no browser download.

export const baseUrl = () => inject('baseUrl');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });

export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: baseUrl(), locale: 'en-GB', timezoneId: 'UTC' });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error: ${e.message}`); });
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
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(found, `axe on ${what}`).toEqual([]);
}

/** A full-page screenshot kept in test/e2e/__screenshots__ for people to look at. */
export async function screenshot(page: Page, name: string, fullPage = true) {
  await mkdir(SHOTS, { recursive: true });
  // Spinners and caret blinks would make every run differ.
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage, animations: 'disabled', caret: 'hide' });
}

/** Waits for the screen's heading, then checks accessibility and saves a screenshot. */
export async function capture(page: Page, name: string, heading: string | RegExp) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' }).catch(() => undefined);
  await expectAccessible(page, name);
  await screenshot(page, name);
}

export async function api<T = any>(method: string, path: string, opts: { token?: string; widgetKey?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.widgetKey) headers['x-widget-key'] = opts.widgetKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl() + path, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An access token for a user the local sign-in page makes of `email` (same sub). */
export async function tokenForEmail(email: string): Promise<string> {
  const { subForEmail } = await import('../../bin/local/idp.ts');
  const r = await api<{ accessToken: string }>('POST', '/local-idp/token', { body: { sub: subForEmail(email), email } });
  return r.body.accessToken;
}
