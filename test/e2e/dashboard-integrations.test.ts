import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, captureWidths, launch, newDashboardPage, newEmail, signIn, tokenForEmail } from './browser.ts';
import { eventually } from '../support/eventually.ts';

// The Integrations screen in headless Chromium: the generated signing secret
// shown once, a test ping and its delivery, redelivery, and setting a disabled integration
// active again. The e2e runtime does not allow loopback receivers, so deliveries go to an https
// host that cannot be reached from here: each attempt fails, and the list shows why.

let browser: Browser;
let owner: { context: BrowserContext; page: Page };
const email = newEmail('int-owner');
let token = '';

beforeAll(async () => {
  browser = await launch();
  token = await tokenForEmail(email);
  expect((await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Hooks Shop' } })).status).toBe(
    201,
  );
  owner = await newDashboardPage(browser);
  await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  await signIn(owner.page, email);
});
afterAll(async () => {
  await browser?.close();
});

describe('integrations', () => {
  it('shows the secret the service made once, with a copy button, and keeps it on a save without one', async () => {
    const { page } = owner;
    await page.goto('/integrations');
    await page.getByRole('button', { name: 'New integration' }).click();
    await page.getByLabel('Name').fill('Order system');
    await page.getByLabel('Endpoint URL').fill('https://orders.example.com/hook');
    await page.getByRole('button', { name: 'Create' }).click();
    const panel = page.getByRole('region', { name: 'Signing secret of Order system' });
    await panel.waitFor();
    const secret = (await panel.locator('code.key').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await panel.getByRole('button', { name: 'Copy the secret' }).click();
    await eventually(async () => expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret));
    await captureWidths(page, 'dashboard-integration-secret', 'Integrations');

    const stored = (await api('GET', '/api/v1/admin/integrations', { token })).body.items[0];
    expect(stored.credentials.secret).toBe(`****${secret.slice(-4)}`);
    await panel.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).not.toContain(secret);

    // A rename without a secret keeps the stored one.
    await page.getByRole('button', { name: 'Edit Order system' }).click();
    expect(await page.getByText('Leave empty to keep it; enter a new one to replace it.').count()).toBe(1);
    await page.getByLabel('Name').fill('Orders');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('rowheader', { name: 'Orders' }).waitFor();
    const renamed = (await api('GET', '/api/v1/admin/integrations', { token })).body.items[0];
    expect(renamed).toMatchObject({ name: 'Orders', credentials: { secret: `****${secret.slice(-4)}` } });
  });

  it('sends a test ping, lists its delivery with attempts and the last error, and redelivers it', async () => {
    const { page } = owner;
    await page.goto('/integrations');
    await page.getByRole('link', { name: 'Deliveries of Orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Integration Orders' }).waitFor();
    await page.getByText('No delivery yet.', { exact: false }).waitFor();
    const sent = page.waitForResponse((r) => r.url().endsWith('/test') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send test' }).click();
    expect((await sent).status()).toBe(202);
    await page.getByText(/A test ping was queued/).waitFor();
    const delivery = page.locator('.delivery').first();
    await delivery.locator('strong', { hasText: 'ping' }).waitFor();
    // The first attempt fails (no network to the endpoint); the list reads it again while pending.
    await delivery.locator('.delivery-error').waitFor({ timeout: 30_000 });
    const attempts = Number(
      await delivery.locator('dt', { hasText: 'Attempts' }).locator('xpath=following-sibling::dd').textContent(),
    );
    expect(attempts).toBeGreaterThanOrEqual(1);
    await captureWidths(page, 'dashboard-integration-deliveries', 'Integration Orders');

    const integrationId = new URL(page.url()).pathname.split('/').at(-1)!;
    const listed = await api('GET', `/api/v1/admin/integrations/${integrationId}/deliveries`, { token });
    expect(listed.body.items[0]).toMatchObject({
      eventType: 'ping',
      attempts: expect.any(Number),
      lastError: expect.any(String),
    });

    const again = page.waitForResponse((r) => r.url().endsWith('/redeliver'));
    await delivery.getByRole('button', { name: /^Redeliver/ }).click();
    expect((await again).status()).toBe(202);
    await page.getByText(/Queued again with the same webhook-id/).waitFor();

    await page.getByLabel('Delivery status').selectOption('succeeded');
    await page.getByText('No succeeded delivery.').waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('succeeded');
  });

  it('sets a disabled integration active again, keeping its credentials', async () => {
    const { page } = owner;
    const before = (await api('GET', '/api/v1/admin/integrations', { token })).body.items[0];
    const { id, type, name, config } = before;
    expect(
      (
        await api('PUT', `/api/v1/admin/integrations/${id}`, {
          token,
          body: { type, name, config, status: 'disabled' },
        })
      ).status,
    ).toBe(200);
    await page.goto('/integrations');
    await page
      .getByRole('row', { name: /Orders/ })
      .getByText('Disabled', { exact: true })
      .waitFor();
    await page.getByRole('button', { name: 'Set active Orders' }).click();
    await page
      .getByRole('row', { name: /Orders/ })
      .getByText('Active', { exact: true })
      .waitFor();
    const after = (await api('GET', '/api/v1/admin/integrations', { token })).body.items[0];
    expect(after).toMatchObject({ status: 'active', credentials: before.credentials });
  });
});
