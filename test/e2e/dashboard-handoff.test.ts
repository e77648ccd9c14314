import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, capture, launch, newEmail, newDashboardPage, signIn, tokenForEmail } from './browser.ts';

// Human handoff from the dashboard (CONTRACT section 8): an agent answers an escalated
// conversation from the inbox and the customer sees it; new customer messages arrive live.

let browser: Browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

async function escalatedConversation() {
  const email = newEmail('agent');
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Handoff Shop' } });
  expect(onboard.status).toBe(201);
  const widgetKey = onboard.body.widgetKey as string;
  const first = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'my parcel is lost' } });
  const conversationId = first.body.conversationId as string;
  const esc = await api('POST', '/api/v1/chat/escalate', { widgetKey, body: { conversationId, reason: 'Lost parcel' } });
  expect(esc.status).toBe(200);
  return { email, token, widgetKey, conversationId, ticketId: esc.body.ticketId as string };
}

describe('handoff: an agent replies from the inbox', () => {
  it('sends the reply into the customer\'s conversation and takes the ticket in progress', async () => {
    const t = await escalatedConversation();
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, t.email);
      await page.goto(`/inbox/${t.conversationId}`);
      await page.getByLabel('Reply to the customer').fill('Sorry about that, I am looking into it now.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      const reply = page.locator('.msg-agent', { hasText: 'Sorry about that, I am looking into it now.' });
      await reply.waitFor();
      // Signed by the agent's display name (by default the part of the email before @).
      expect(await reply.locator('.msg-who').textContent()).toContain(t.email.split('@')[0]);
      expect(await page.getByLabel('Reply to the customer').inputValue()).toBe('');
      await capture(page, 'dashboard-handoff-reply', 'Inbox');

      const customer = await api('GET', `/api/v1/chat/conversations/${t.conversationId}`, { widgetKey: t.widgetKey });
      const last = customer.body.messages.at(-1);
      expect(last).toMatchObject({ role: 'agent', content: 'Sorry about that, I am looking into it now.', author: { name: expect.any(String) } });
      expect(JSON.stringify(last.author)).not.toContain(t.email);
      const ticket = await api('GET', `/api/v1/admin/tickets/${t.ticketId}`, { token: t.token });
      expect(ticket.body.ticket.status).toBe('in_progress');
    } finally {
      await context.close();
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
      const sent = await api('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { conversationId: t.conversationId, message: 'Any news on my parcel?' } });
      expect(sent.status).toBe(200);
      await page.locator('.msg-user', { hasText: 'Any news on my parcel?' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
