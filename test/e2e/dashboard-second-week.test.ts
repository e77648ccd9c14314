import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newTeam, screenshot, signIn } from './browser.ts';
import { eventually } from '../support/eventually.ts';

// A team's second week: where each conversation stands in the inbox (ticket number, status,
// assignee, what it needs), the customer's rating and comment on the conversation and the ticket,
// and where an agent's reply goes when the widget customer is away with an address left.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function escalated(widgetKey: string, message: string) {
  const m = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message } });
  const conversationId = m.body.conversationId as string;
  const e = await api('POST', '/api/v1/chat/escalate', { widgetKey, body: { conversationId, reason: message } });
  expect(e.status).toBe(200);
  return { conversationId, ticketId: e.body.ticketId as string };
}

describe('the inbox in the second week', () => {
  it("shows each conversation's ticket, status, assignee and what it needs; the rating; where a reply goes", async () => {
    const { email, token, widgetKey } = await newTeam('lead', 'Second Week Bikes');
    // Ana asked out of hours, left her address and rated the assistant's answer low.
    const ana = await escalated(widgetKey, 'how long is the return window?');
    expect(
      (
        await api('POST', `/api/v1/chat/conversations/${ana.conversationId}/contact`, {
          widgetKey,
          body: { email: 'ana@riders.example' },
        })
      ).status,
    ).toBe(200);
    const comment = 'the bot told me 30 days, your site says 14';
    expect(
      (
        await api('POST', `/api/v1/chat/conversations/${ana.conversationId}/rating`, {
          widgetKey,
          body: { score: 2, comment },
        })
      ).status,
    ).toBe(200);
    // Ben's ticket was resolved; Carl was answered and the team waits on him.
    const ben = await escalated(widgetKey, 'my brake pads squeal');
    expect(
      (await api('PATCH', `/api/v1/admin/tickets/${ben.ticketId}`, { token, body: { status: 'resolved' } })).status,
    ).toBe(200);
    const carl = await escalated(widgetKey, 'is the gravel king in stock?');
    expect(
      (
        await api('POST', `/api/v1/admin/conversations/${carl.conversationId}/messages`, {
          token,
          body: { content: 'Checking!' },
        })
      ).status,
    ).toBe(201);

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto('/inbox');
      const row = (id: string) => page.locator('li', { has: page.locator(`a[href^="/inbox/${id}"]`) });
      await row(ana.conversationId).getByText('Ticket #1 · Open · Unassigned · rated 2/5').waitFor();
      expect(await row(ana.conversationId).locator('.badge-waiting_for_us').textContent()).toBe('Waiting for us');
      expect(await row(ben.conversationId).locator('.badge-done').textContent()).toBe('Done');
      expect(await row(carl.conversationId).locator('.badge-waiting_for_customer').textContent()).toBe(
        'Waiting for the customer',
      );
      expect(await page.locator('.list .badge', { hasText: 'Escalated' }).count()).toBe(0);
      await row(carl.conversationId).getByText('Ticket #3 · In progress').waitFor();

      // Filter by what needs doing.
      await page.getByLabel('Needs').selectOption('done');
      await page.waitForURL(/stage=done/);
      await row(ben.conversationId).waitFor();
      await eventually(async () => expect(await page.locator('.list > li').count()).toBe(1));
      await page.getByLabel('Needs').selectOption('');

      // Ana's conversation: her rating and comment, and the reply box says it goes by email too.
      await page.goto(`/inbox/${ana.conversationId}`);
      await page.locator('.rating').getByText(comment).waitFor();
      await page.getByText('your reply goes to the chat and by email to ana@riders.example').waitFor();
      await page.setViewportSize({ width: 1366, height: 800 });
      await screenshot(page, 'dashboard-second-week-inbox-1366');
      await page.setViewportSize({ width: 1280, height: 800 });
      await captureWidths(page, 'dashboard-second-week-inbox', 'Inbox');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);

      // The Overview lists the recent low rating with what she wrote.
      await page.goto('/');
      const low = page.locator('section', { has: page.getByRole('heading', { name: 'Recent low ratings' }) });
      await low.getByText(`“${comment}”`).waitFor();
      expect(await low.textContent()).toContain('Rated 2/5');
      await captureWidths(page, 'dashboard-second-week-overview', 'Overview');

      // The ticket: its number, not its raw id; the rating there too; the tickets list names the assignee.
      await page.goto(`/tickets/${ana.ticketId}`);
      await page.locator('.rating').getByText(comment).waitFor();
      expect(await page.locator('main').textContent()).not.toContain('tkt_');
      await captureWidths(page, 'dashboard-second-week-ticket', 'Ticket #1');
      await page.goto('/tickets');
      await page.getByRole('columnheader', { name: 'Assignee' }).waitFor();
      expect(await page.locator('tbody tr', { hasText: '#1' }).getByText('Unassigned').count()).toBe(1);
      await captureWidths(page, 'dashboard-second-week-tickets', 'Tickets');
    } finally {
      await context.close();
    }
  }, 120_000);
});
