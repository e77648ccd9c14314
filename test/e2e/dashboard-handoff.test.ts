import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  capture,
  customerEscalates,
  launch,
  newDashboardPage,
  newPage,
  shot,
  newTeam,
  signIn,
} from './browser.ts';

// Human handoff from the dashboard (docs/API.md, Human handoff): an agent answers an escalated
// conversation from the inbox and the customer sees it in the widget on the shop's page, over the
// customer's live socket; new customer messages arrive live on the dashboard.

const REPLY = 'Sorry about that, I am looking into it now.';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function escalatedConversation() {
  const { email, token, widgetKey } = await newTeam('agent', 'Handoff Shop');
  const first = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'my parcel is lost' } });
  const conversationId = first.body.conversationId as string;
  const esc = await api('POST', '/api/v1/chat/escalate', {
    widgetKey,
    body: { conversationId, reason: 'Lost parcel' },
  });
  expect(esc.status).toBe(200);
  return { email, token, widgetKey, conversationId, ticketId: esc.body.ticketId as string };
}

describe('handoff: an agent replies from the inbox', () => {
  it("shows the reply in the customer's widget, over the customer's live socket, and takes the ticket in progress", async () => {
    const { email, token, widgetKey } = await newTeam('agent', 'Handoff Shop');

    // The customer's side: the widget on the shop's page, and the frames its live socket receives.
    const customer = await newPage(browser);
    const frames: string[] = [];
    customer.on('websocket', (ws) => {
      if (ws.url().includes('/api/v1/live'))
        ws.on('framereceived', (f) => {
          if (typeof f.payload === 'string') frames.push(f.payload);
        });
    });
    const t = await customerEscalates(customer, widgetKey);

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto(`/inbox/${t.conversationId}`);
      await page.getByLabel('Reply to the customer').fill(REPLY);
      await page.getByRole('button', { name: 'Send reply' }).click();
      // A first reply asks for the name customers will read, prefilled from the email.
      const name = page.getByLabel('Name customers see');
      const prefilled = await name.inputValue();
      expect(prefilled).toBe((await api('GET', '/api/v1/admin/auth/me', { token })).body.displayName);
      await page.getByRole('button', { name: 'Save the name and send' }).click();
      const reply = page.locator('.msg-agent', { hasText: REPLY });
      await reply.waitFor();
      expect(await reply.locator('.msg-who').textContent()).toContain(prefilled);
      expect(await page.getByLabel('Reply to the customer').inputValue()).toBe('');
      await capture(page, 'dashboard-handoff-reply', 'Inbox');

      // The customer sees it without reloading: it came over the live socket.
      const seen = customer.locator('.msg-agent', { hasText: REPLY });
      await seen.waitFor();
      expect(await seen.textContent()).toContain(prefilled);
      expect(await seen.textContent()).not.toContain(email);
      await customer.locator('.ticket').filter({ hasText: 'a person from our team is on it' }).waitFor();
      const event = frames
        .map((f) => JSON.parse(f))
        .find((e) => e.type === 'message.created' && e.data.message?.content === REPLY);
      expect(event?.data).toMatchObject({
        conversationId: t.conversationId,
        message: { role: 'agent', author: { name: expect.any(String) } },
      });
      expect(JSON.stringify(event.data.message.author)).not.toContain(email);
      await shot(customer, 'dashboard-handoff-customer');

      const ticket = await api('GET', `/api/v1/admin/tickets/${t.ticketId}`, { token });
      expect(ticket.body.ticket.status).toBe('in_progress');
    } finally {
      await context.close();
      await customer.context().close();
    }
  });
});

describe('live channel', () => {
  it('shows a new customer message in the open conversation without a reload', async () => {
    const t = await escalatedConversation();
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, t.email);
      // The link that Slack messages carry opens the conversation in the inbox.
      await page.goto(`/conversations/${t.conversationId}`);
      await page.locator('.live-live').waitFor();
      const sent = await api('POST', '/api/v1/chat/message', {
        widgetKey: t.widgetKey,
        body: { conversationId: t.conversationId, message: 'Any news on my parcel?' },
      });
      expect(sent.status).toBe(200);
      await page.locator('.msg-user', { hasText: 'Any news on my parcel?' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
