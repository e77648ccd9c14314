import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  baseUrl,
  captureWidths,
  launch,
  newDashboardPage,
  newEmail,
  newPage,
  servePages,
  signIn,
  tokenForEmail,
} from './browser.ts';
import { hmac } from '../integration/mail.ts';

// Knowing the customer on the dashboard: the visitor beside each conversation and ticket, the
// customer panel with their other conversations, tickets by number, and the settings for business
// hours and verified identity (with the widget showing what was saved).

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function team(name: string) {
  const email = newEmail('owner');
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: name } });
  expect(onboard.status).toBe(201);
  return { email, token, widgetKey: onboard.body.widgetKey as string };
}

describe('the customer on the dashboard', () => {
  it('names the visitor in the inbox and on tickets, lists their other conversations, and finds a ticket by number', async () => {
    const t = await team('Known Customers');
    const secret = (await api('POST', '/api/v1/admin/settings/identity-secret/rotate', { token: t.token })).body
      .secret as string;
    const ada = { userId: 'cust-7', name: 'Ada Lovelace', email: 'ada@example.com', userHash: hmac(secret, 'cust-7') };
    const say = async (message: string, visitor?: unknown) =>
      (
        await api('POST', '/api/v1/chat/message', {
          widgetKey: t.widgetKey,
          body: { message, ...(visitor ? { visitor } : {}) },
        })
      ).body.conversationId as string;
    // A first conversation that needs no person (an order question now hands over and takes ticket #1).
    const older = await say('hi, I have a question', ada);
    const current = await say('my parcel arrived broken', ada);
    const esc = await api('POST', '/api/v1/chat/escalate', {
      widgetKey: t.widgetKey,
      body: { conversationId: current, reason: 'Broken parcel' },
    });
    expect(esc.body.ticketNumber).toBe(1);
    await say('hello there', { userId: 'guest-1', name: 'Claimed Name' }); // unverified
    const anon = await say('just browsing');
    const esc2 = await api('POST', '/api/v1/chat/escalate', {
      widgetKey: t.widgetKey,
      body: { conversationId: anon, reason: 'Anonymous question' },
    });
    expect(esc2.body.ticketNumber).toBe(2);

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, t.email);
      await page.goto('/inbox');
      const list = page.getByRole('region', { name: 'Conversations' });
      await list.getByRole('link', { name: 'Ada Lovelace' }).first().waitFor();
      expect(await list.getByRole('link', { name: 'Claimed Name' }).count()).toBe(1);
      expect(await list.getByRole('link', { name: /^Visitor \d+$/ }).count()).toBe(1);
      // The latest message is a preview, never the title.
      expect(await list.getByRole('link', { name: 'just browsing' }).count()).toBe(0);
      expect(await list.locator('li', { hasText: 'Claimed Name' }).getByText('Unverified').count()).toBe(1);

      await page.goto(`/inbox/${current}`);
      const panel = page.getByRole('region', { name: 'Customer', exact: true });
      await panel.getByText('ada@example.com').waitFor();
      expect(await panel.getByText('cust-7').count()).toBe(1);
      expect(await panel.getByText('Verified', { exact: true }).count()).toBe(1);
      await panel.getByRole('link', { name: 'hi, I have a question' }).waitFor();
      expect(await panel.getByRole('link').count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Ticket #1' }).count()).toBe(1);
      await captureWidths(page, 'dashboard-customer-panel', 'Inbox');
      await panel.getByRole('link', { name: 'hi, I have a question' }).click();
      await page.waitForURL(`**/inbox/${older}`);
      await page
        .getByRole('region', { name: 'Customer', exact: true })
        .getByRole('link', { name: 'my parcel arrived broken' })
        .waitFor();

      await page.goto('/tickets');
      const table = page.getByRole('table');
      await table.getByRole('link', { name: 'Ticket #1' }).waitFor();
      expect(await table.getByRole('row', { name: /#1 Ada Lovelace Verified/ }).count()).toBe(1);
      await page.getByLabel('Ticket number').fill('abc');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('A ticket number is a whole number from 1, like 12 or #12.').waitFor();
      // A number no ticket has: the list says so.
      await page.getByLabel('Ticket number').fill('#99');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.waitForURL(/number=99/);
      await page.getByText('No ticket #99.').waitFor();
      // The list by number stays a link of its own.
      await page.goto('/tickets?number=2');
      await table.getByRole('link', { name: 'Ticket #2' }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
      await captureWidths(page, 'dashboard-tickets-number', 'Tickets');
      // Finding `#2` opens ticket #2.
      await page.getByLabel('Ticket number').fill('#2');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ticket #2' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/tickets\/tkt_/);
      expect(await page.getByRole('link', { name: /^Visitor \d+$/ }).count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});

describe('settings for customers', () => {
  it('saves business hours and the reply time (the widget shows it), refuses bad hours field by field, and rotates the identity secret once', async () => {
    const t = await team('Hours Shop');
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, t.email);
      await page.goto('/settings');
      const form = page.getByRole('form', { name: 'Business hours' });
      await form.waitFor();
      await form.getByLabel('Reply time').fill('usually within an hour');
      await form.getByLabel('Keep business hours (off: always open)').check();
      await form.getByLabel('Time zone').selectOption('Europe/Berlin');
      // Two overlapping ranges on Monday, and a date that is not one.
      await form.getByRole('button', { name: 'Add hours on Monday' }).click();
      await form.getByRole('button', { name: 'Add hours on Monday' }).click();
      await form.getByLabel('Monday, range 2, opens').fill('10:00');
      await form.getByLabel('Holidays').fill('2026-12-25\n2026-13-01');
      await form.getByRole('button', { name: 'Save business hours' }).click();
      await form.getByText('Monday has overlapping ranges').first().waitFor();
      await form.getByText(/line 2: must be a date YYYY-MM-DD/).waitFor();
      await captureWidths(page, 'dashboard-hours-errors', 'Settings');

      await form.getByRole('button', { name: 'Remove Monday range 2' }).click();
      await form.getByLabel('Holidays').fill('2026-12-25');
      // Every day 09:00 to 17:00 in Berlin.
      for (const d of ['Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])
        await form.getByRole('button', { name: `Add hours on ${d}` }).click();
      await form.getByRole('button', { name: 'Save business hours' }).click();
      await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const s = await api('GET', '/api/v1/admin/settings', { token: t.token });
      expect(s.body.config.businessHours).toEqual({
        timezone: 'Europe/Berlin',
        weekly: {
          mon: [['09:00', '17:00']],
          tue: [['09:00', '17:00']],
          wed: [['09:00', '17:00']],
          thu: [['09:00', '17:00']],
          fri: [['09:00', '17:00']],
          sat: [['09:00', '17:00']],
          sun: [['09:00', '17:00']],
        },
        holidays: ['2026-12-25'],
      });
      expect(s.body.config.widget.replyTime).toBe('usually within an hour');

      // What the widget says now: open with the reply time, or away until the next opening.
      const widget = await api('GET', '/api/v1/chat/widget', { widgetKey: t.widgetKey });
      const shop = await servePages({
        '/': `<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        <script src="${baseUrl()}/widget.js" data-widget-key="${t.widgetKey}" data-open="true" async></script></body></html>`,
      });
      try {
        const customer = await newPage(browser);
        await customer.goto(shop.url);
        await customer
          .getByRole('dialog')
          .getByText(widget.body.online ? 'Our team replies usually within an hour.' : /^We're away — back /)
          .waitFor();
        await customer.context().close();
      } finally {
        await shop.stop();
      }

      // Identity: no secret yet; made once, shown once, masked afterwards.
      const card = page.getByRole('region', { name: 'Verified customers' });
      await card.getByText('No secret yet').waitFor();
      await card.getByRole('button', { name: 'Make an identity secret' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Make the secret' }).click();
      const secret = (await card.locator('code.secret').textContent())!;
      expect(secret).toMatch(/^ids_/);
      // A first secret replaces nothing: no word of an old one.
      await card.getByText('Your identity secret, shown only now.').waitFor();
      expect(await card.textContent()).not.toContain('old one');
      await card.getByLabel('Require verified customers').check();
      await card.getByRole('status').filter({ hasText: 'Verified customers are required now.' }).waitFor();
      await captureWidths(page, 'dashboard-identity-secret', 'Settings');
      const refused = await api('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hi' } });
      expect(refused.status).toBe(401);
      const signed = await api('POST', '/api/v1/chat/message', {
        widgetKey: t.widgetKey,
        body: { message: 'hi', visitor: { userId: 'u1', userHash: hmac(secret, 'u1') } },
      });
      expect(signed.status).toBe(200);
      await page.reload();
      await card.getByText(/Current secret \*+/).waitFor();
      expect(await page.content()).not.toContain(secret);
      // A rotation does replace one, and says so.
      await card.getByRole('button', { name: 'Rotate the identity secret' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate the secret' }).click();
      await card.getByText('The new secret, shown only now.').waitFor();
      expect(await card.textContent()).toContain('the old one stopped working');
      expect(await card.locator('code.secret').textContent()).not.toBe(secret);
    } finally {
      await context.close();
    }
  });
});
