import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, captureWidths, launch, newDashboardPage, newEmail, signIn, tokenForEmail } from './browser.ts';
import { eventually } from '../support/eventually.ts';

// A failure on the service's side (500) shows its request id with a button that copies it, for
// the person to give support: from the problem document, or from the x-request-id header when the
// body is not one. The 500s are answered by the browser's route interception: the service itself
// has no way to fail on purpose.

let browser: Browser;
let owner: { context: BrowserContext; page: Page };
let ticketId = '';

/** Answers the matching requests with a 500: a problem document, or (`plain`) a body that is not one. */
const fail500 =
  (requestId: string, plain = false) =>
  (route: Route) =>
    route.fulfill({
      status: 500,
      headers: { 'content-type': plain ? 'text/plain' : 'application/problem+json', 'x-request-id': requestId },
      body: plain
        ? 'upstream failed'
        : JSON.stringify({
            type: 'about:blank',
            title: 'Internal Server Error',
            status: 500,
            code: 'INTERNAL',
            requestId,
            detail: 'an internal error occurred; quote the request id when reporting it',
          }),
    });

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

beforeAll(async () => {
  browser = await launch();
  owner = await newDashboardPage(browser);
  owner.context.setDefaultTimeout(30_000);
  await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  const email = newEmail('request-id');
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Request Id Shop' } });
  expect(onboard.status).toBe(201);
  const widgetKey = onboard.body.widgetKey as string;
  const m = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'hello' } });
  const e = await api('POST', '/api/v1/chat/escalate', {
    widgetKey,
    body: { conversationId: m.body.conversationId, reason: 'my parcel is lost' },
  });
  expect(e.status).toBe(200);
  ticketId = e.body.ticketId as string;
  await signIn(owner.page, email);
});
afterAll(async () => {
  await browser?.close();
});

describe('a 500 in the dashboard', () => {
  it('a failed change shows the request id of the problem document, and Copy puts it on the clipboard', async () => {
    const { page } = owner;
    await page.goto(`/tickets/${ticketId}`);
    await page.getByRole('heading', { level: 1, name: /^Ticket #/ }).waitFor();
    const id = `req-e2e-${Date.now().toString(36)}`;
    await page.route('**/api/v1/admin/tickets/*', (route) =>
      route.request().method() === 'PATCH' ? fail500(id)(route) : route.fallback(),
    );
    await page.getByRole('button', { name: 'Assign to me' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'give support the request id' });
    await eventually(async () => expect(await alert.textContent()).toContain(id), { timeout: 20_000 });
    await alert.getByRole('button', { name: 'Copy the request id' }).click();
    await alert.getByRole('button', { name: /^Copied/ }).waitFor();
    expect(await clipboard(page)).toBe(id);
    await captureWidths(page, 'dashboard-request-id-change', /^Ticket #/);
    // At 360 px the id and its button still fit the screen.
    await page.setViewportSize({ width: 360, height: 800 });
    const box = await alert.getByRole('button', { name: /Copy the request id|Copied/ }).boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.unroute('**/api/v1/admin/tickets/*');
  });

  it('a screen that cannot load shows the id from x-request-id when the body is no problem document', async () => {
    const { page } = owner;
    const id = `req-e2e-header-${Date.now().toString(36)}`;
    await page.route('**/api/v1/admin/tickets/*', (route) =>
      route.request().method() === 'GET' ? fail500(id, true)(route) : route.fallback(),
    );
    await page.goto(`/tickets/${ticketId}`);
    const alert = page.getByRole('alert');
    await eventually(async () => expect(await alert.textContent()).toContain(id), { timeout: 20_000 });
    // The body is no message for people: the service's own words for a failure on its side.
    expect(await alert.textContent()).toContain('give support the request id');
    expect(await alert.textContent()).not.toContain('upstream failed');
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await alert.getByRole('button', { name: 'Copy the request id' }).click();
    await eventually(async () => expect(await clipboard(page)).toBe(id), { timeout: 5_000 });
    await captureWidths(page, 'dashboard-request-id-load', 'Ticket');
    await page.unroute('**/api/v1/admin/tickets/*');
  });

  it('a refusal of the client (4xx) shows no request id: it says what to change', async () => {
    const { page } = owner;
    await page.route('**/api/v1/admin/tickets/*', (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 409,
            headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-409' },
            body: JSON.stringify({
              type: 'about:blank',
              title: 'Conflict',
              status: 409,
              code: 'INVALID_TRANSITION',
              requestId: 'req-409',
              detail: 'a closed ticket changes no more',
            }),
          })
        : route.fallback(),
    );
    await page.goto(`/tickets/${ticketId}`);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByRole('alert').filter({ hasText: 'a closed ticket changes no more' }).waitFor();
    expect(await page.getByText('req-409').count()).toBe(0);
    await page.unroute('**/api/v1/admin/tickets/*');
  });
});
