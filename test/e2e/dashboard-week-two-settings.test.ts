import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newTeam, screenshot, signIn } from './browser.ts';

// What a team meets in its second week, on the settings side: the email controls (automatic
// answers, the sending address and whether SES verified it), the sole owner's row, the time zone.

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

  it("offers the sole owner no role menu, and starts business hours in the browser's zone by its current name", async () => {
    const { email } = await newTeam('owner', 'Zone Bikes');
    // Chromium calls Kolkata by ICU's old name, Asia/Calcutta.
    const { context, page } = await newDashboardPage(browser, { timezoneId: 'Asia/Kolkata' });
    try {
      await signIn(page, email);
      await page.goto('/members');
      await page.getByText('The only owner: make another member owner first.').waitFor();
      expect(await page.getByLabel(`Role of ${email}`).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
      await captureWidths(page, 'members-sole-owner', 'Members');

      await page.goto('/settings');
      await page.getByLabel('Keep business hours (off: always open)').check();
      const zone = page.getByLabel('Time zone');
      expect(await zone.inputValue()).toBe('Asia/Kolkata');
      const zones = await zone.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      for (const retired of ['Africa/Asmera', 'America/Godthab', 'Asia/Calcutta', 'Europe/Kiev'])
        expect(zones).not.toContain(retired);
      for (const named of ['Africa/Asmara', 'America/Nuuk', 'Europe/Kyiv', 'UTC']) expect(zones).toContain(named);
      expect(new Set(zones).size).toBe(zones.length);
    } finally {
      await context.close();
    }
  });
});
