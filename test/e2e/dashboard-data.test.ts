import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newEmail, signIn, tokenForEmail } from './browser.ts';

// The data's life on the settings screen: the retention policy in words, and one customer's
// export (a JSON file) and erasure.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("the customer's data on the dashboard", () => {
  it('states and saves the retention policy, exports a customer as a file and erases them', async () => {
    const email = newEmail('owner');
    const token = await tokenForEmail(email);
    const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Data Shop' } });
    const widgetKey = onboard.body.widgetKey as string;
    const m = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'Where is parcel QX-19?' } });
    await api('POST', `/api/v1/chat/conversations/${m.body.conversationId}/contact`, {
      widgetKey,
      body: { email: 'ada@example.com' },
    });

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto('/settings');
      const form = page.getByRole('form', { name: 'Keeping conversations' });
      await form.getByText('Conversations are kept for ever.').waitFor();
      await form.getByLabel('Remove conversations idle for (days)').fill('10');
      await form.getByRole('button', { name: 'Save retention' }).click();
      await form.getByText('must be a whole number of days from 30 to 3650').waitFor();
      await form.getByLabel('Remove conversations idle for (days)').fill('90');
      await form.getByRole('button', { name: 'Save retention' }).click();
      await form.getByText(/A conversation idle for 90 days is removed/).waitFor();
      expect((await api('GET', '/api/v1/admin/settings', { token })).body.config.retention).toEqual({
        conversationDays: 90,
      });

      const card = page.getByRole('region', { name: "A customer's data" });
      await card.getByLabel('Email address or verified user id').fill('ada@example.com');
      const download = page.waitForEvent('download');
      await card.getByRole('button', { name: 'Export their data' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^customer-cus_[0-9A-Z]{26}\.json$/);
      const doc = JSON.parse(
        await (await file.createReadStream()).toArray().then((b) => Buffer.concat(b).toString('utf8')),
      );
      expect(doc.conversations[0].messages[0].content).toBe('Where is parcel QX-19?');
      await card.getByText('Exported 1 conversation(s)').waitFor();
      await captureWidths(page, 'dashboard-data', 'Settings');

      await card.getByRole('button', { name: 'Erase their data' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Erase' }).click();
      await card.getByText(/Erased: 1 conversation, /).waitFor();
      const after = await api('GET', `/api/v1/admin/conversations/${m.body.conversationId}`, { token });
      expect(after.body.messages[0].content).toBe('[erased]');
    } finally {
      await context.close();
    }
  }, 120_000);

  it("lets the owner take the team's data as a file, delete the team by its name, and then shows the deletion's progress", async () => {
    const email = newEmail('leaver');
    const token = await tokenForEmail(email);
    const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Leaving Shop' } });
    const widgetKey = onboard.body.widgetKey as string;
    await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'Do you ship to Oslo?' } });

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto('/settings');
      const card = page.getByRole('region', { name: 'Leaving' });
      // The export is a job: the card shows its progress, then offers the file's link.
      await card.getByRole('button', { name: 'Export all data' }).click();
      const link = card.getByRole('link', { name: /^Download tenant-.+\.jsonl$/ });
      await link.waitFor({ timeout: 60_000 });
      await captureWidths(page, 'dashboard-export', 'Settings');
      const download = page.waitForEvent('download');
      await link.click();
      const file = await download;
      const lines = (await (await file.createReadStream()).toArray().then((b) => Buffer.concat(b).toString('utf8')))
        .trim()
        .split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'tenant-export/1', tenantId: onboard.body.tenant.id });
      expect(lines.some((l) => l.includes('Do you ship to Oslo?'))).toBe(true);
      await card.getByText(/^Exported \d+ items/).waitFor();

      const remove = card.getByRole('button', { name: 'Delete the team' });
      expect(await remove.isDisabled()).toBe(true);
      await card.getByLabel('Type "Leaving Shop" to delete the team').fill('Leaving Shop');
      await remove.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText(/^Leaving Shop is being deleted: \d+ items removed so far\.$/).waitFor();
      await captureWidths(page, 'dashboard-leaving', 'Set up your team');
      expect((await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'hello?' } })).status).toBe(401);
    } finally {
      await context.close();
    }
  }, 120_000);
});
