import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newTeam, screenshot, signIn } from './browser.ts';

// What a team meets in its second week, on the settings side: the email controls (automatic
// answers, the sending address and whether SES verified it).

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('settings: email controls', () => {
  it('turns automatic answers on and shows the sending address with its verification', async () => {
    const { email, token } = await newTeam('lead', 'Email Controls Bikes');
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto('/settings');
      await page.getByRole('heading', { name: 'Answering and sending' }).waitFor();
      expect(await page.getByText('email.fromAddress').count()).toBe(0);
      await page.getByLabel(/Answer emails automatically/).check();
      await page.getByLabel('Send replies from').fill('help@bikes.example');
      await page.getByRole('button', { name: 'Save email settings' }).click();
      await page.getByText(/help@bikes\.example.*Verification pending/).waitFor();
      const kept = await api('GET', '/api/v1/admin/settings', { token });
      expect(kept.body.config.email).toMatchObject({ autoReply: 'knowledge', fromAddress: 'help@bikes.example' });
      await page.locator('#email-h').scrollIntoViewIfNeeded();
      await captureWidths(page, 'settings-email-pending', 'Settings');

      await page.getByLabel('Send replies from').fill('team@mail.localhost');
      await page.getByRole('button', { name: 'Save email settings' }).click();
      await page.getByText(/team@mail\.localhost.*Verified: replies are sent from this address/).waitFor();
      await screenshot(page, 'settings-email-verified');
    } finally {
      await context.close();
    }
  });
});
