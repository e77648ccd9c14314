import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  capture,
  captureWidths,
  customerEscalates,
  launch,
  newDashboardPage,
  newEmail,
  newPage,
  shopUrl,
  shot,
  signIn,
  tokenForEmail,
} from './browser.ts';
import { eventually } from '../support/eventually.ts';

// The team's daily tools in the dashboard (docs/API.md, Saved replies and labels; Typing): `/` in
// the reply box inserts a saved reply with its placeholders filled in, labels on a conversation and
// the inbox's filter by label, and typing seen on both sides (the widget on the shop's page, the inbox).

const REFUND = 'Hi {{visitor.name}}, {{agent.name}} here: your refund for ticket #{{ticket.number}} is on its way.';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function team(name: string) {
  const email = newEmail('agent');
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: name } });
  expect(onboard.status).toBe(201);
  expect((await api('PATCH', '/api/v1/admin/auth/me', { token, body: { displayName: 'Sam' } })).status).toBe(200);
  return { email, token, widgetKey: onboard.body.widgetKey as string };
}

async function liveDashboard(email: string) {
  const { context, page } = await newDashboardPage(browser);
  await signIn(page, email);
  return { context, page };
}

describe('saved replies and labels in the dashboard', () => {
  it('manages saved replies, inserts one with `/` filled in, labels the conversation and filters the inbox by label', async () => {
    const t = await team('Tools Shop');
    expect(
      (
        await api('POST', '/api/v1/admin/saved-replies', {
          token: t.token,
          body: { shortcut: 'refund', title: 'Refund on its way', body: REFUND },
        })
      ).status,
    ).toBe(201);
    const first = await api('POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'where is my refund', visitor: { userId: 'cust-42', name: 'Ada' } },
    });
    const conversationId = first.body.conversationId as string;
    const esc = await api('POST', '/api/v1/chat/escalate', {
      widgetKey: t.widgetKey,
      body: { conversationId, reason: 'Refund' },
    });
    expect(esc.status).toBe(200);
    const other = (await api('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hello' } }))
      .body.conversationId as string;

    const { context, page } = await liveDashboard(t.email);
    try {
      // The saved replies screen: an admin writes one more.
      await page.getByRole('link', { name: 'Saved replies' }).click();
      await page.getByRole('heading', { level: 1, name: 'Saved replies' }).waitFor();
      await page.getByLabel('Shortcut').fill('thanks');
      await page.getByLabel('Title').fill('Thank you');
      await page.getByLabel('Text', { exact: true }).fill('Thanks {{visitor.name}}, glad to help!');
      await page.getByRole('button', { name: 'Save reply' }).click();
      await page.getByRole('status').filter({ hasText: 'Agents find it with /thanks' }).waitFor();
      await page.locator('.saved-item', { hasText: '/thanks' }).waitFor();
      // A taken shortcut says so next to the field.
      await page.getByLabel('Shortcut').fill('refund');
      await page.getByLabel('Title').fill('Again');
      await page.getByLabel('Text', { exact: true }).fill('Again');
      await page.getByRole('button', { name: 'Save reply' }).click();
      await page.getByText(/already used by another saved reply/).waitFor();
      await captureWidths(page, 'team-tools-saved-replies', 'Saved replies');
      // At 360 px the screen keeps to the window: no sideways scroll of the page.
      await page.setViewportSize({ width: 360, height: 800 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.setViewportSize({ width: 1280, height: 800 });

      // `/` in the reply box: a listbox of saved replies, filtered as the agent types.
      await page.goto(`/inbox/${conversationId}`);
      const box = page.getByRole('combobox', { name: 'Reply to the customer' });
      await box.click();
      await box.pressSequentially('/re');
      const list = page.getByRole('listbox', { name: 'Saved replies' });
      await list.waitFor();
      expect(await box.getAttribute('aria-expanded')).toBe('true');
      const options = list.getByRole('option');
      expect(await options.count()).toBe(1);
      expect(await options.first().getAttribute('aria-selected')).toBe('true');
      expect(await box.getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
      await capture(page, 'team-tools-picker', 'Inbox');
      // Backspace widens the filter; the arrow keys move through it; Escape closes it.
      await box.press('Backspace');
      await box.press('Backspace');
      expect(await options.count()).toBe(2);
      await box.press('ArrowDown');
      expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
      await box.press('Escape');
      await list.waitFor({ state: 'hidden' });
      expect(await box.getAttribute('aria-expanded')).toBe('false');
      await box.fill('');
      await box.pressSequentially('/ref');
      await list.waitFor();
      await box.press('Enter');
      await list.waitFor({ state: 'hidden' });
      const filled = 'Hi Ada, Sam here: your refund for ticket #1 is on its way.';
      expect(await box.inputValue()).toBe(filled);
      // Still editable before sending.
      await box.press('End');
      await box.pressSequentially(' Sorry for the wait.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      await page.locator('.msg-agent', { hasText: `${filled} Sorry for the wait.` }).waitFor();

      // Labels: added on the conversation, shown in the list, filtered on with counts.
      const labelInput = page.getByLabel('Add a label');
      await labelInput.fill('VIP');
      await page.getByRole('button', { name: 'Add label' }).click();
      await page.getByRole('button', { name: 'Remove label VIP' }).waitFor();
      await labelInput.fill('Refunds');
      await labelInput.press('Enter');
      await page.getByRole('button', { name: 'Remove label Refunds' }).waitFor();
      await page.getByRole('button', { name: 'Remove label Refunds' }).click();
      await page.getByRole('button', { name: 'Remove label Refunds' }).waitFor({ state: 'detached' });
      await capture(page, 'team-tools-labels', 'Inbox');

      const filter = page.getByLabel('Label', { exact: true });
      await page.locator('option', { hasText: 'VIP (1)' }).waitFor({ state: 'attached' });
      expect(await filter.locator('option').allTextContents()).toEqual(['Any label', 'VIP (1)']);
      await filter.selectOption('VIP');
      await page.waitForURL(/label=VIP/);
      const items = page.locator('.list > li');
      await eventually(async () => expect(await items.count()).toBe(1));
      expect(await items.first().locator('a').getAttribute('href')).toContain(conversationId);
      expect(await page.locator(`.list a[href*="${other}"]`).count()).toBe(0);
      await items.first().locator('.chip', { hasText: 'VIP' }).waitFor();
      await capture(page, 'team-tools-label-filter', 'Inbox');
      await filter.selectOption('');
      await page.locator(`.list a[href*="${other}"]`).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('typing, seen on both sides', () => {
  it('the agent sees the customer typing, the customer sees the agent typing, and each goes when the message comes', async () => {
    const t = await team('Typing Shop');
    const customer = await newPage(browser);
    const sent: string[] = [];
    customer.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        if (typeof f.payload === 'string') sent.push(f.payload);
      }),
    );
    const { conversationId } = await customerEscalates(customer, t.widgetKey);

    const { context, page } = await liveDashboard(t.email);
    try {
      await page.goto(`/inbox/${conversationId}`);
      await page.locator('.live', { hasText: 'Live' }).waitFor();
      const note = page.locator('.typing-note');
      expect((await note.textContent())?.trim()).toBe('');

      // The customer types (throttled: a burst of keys is one or two frames).
      const input = customer.getByRole('textbox', { name: 'Message' });
      await input.pressSequentially('Any news about', { delay: 20 });
      await note.filter({ hasText: 'Customer is typing…' }).waitFor();
      // The inbox's list says so on the conversation's row too.
      await page.locator('.list li', { hasText: 'typing…' }).waitFor();
      const frames = sent.map((f) => JSON.parse(f)).filter((f) => f.action === 'typing');
      expect(frames.length).toBeGreaterThanOrEqual(1);
      expect(frames.length).toBeLessThanOrEqual(2);
      expect(frames[0]).toEqual({ action: 'typing', conversationId });
      await capture(page, 'team-tools-customer-typing', 'Inbox');

      // The agent types: the customer sees the agent's name.
      const box = page.getByRole('combobox', { name: 'Reply to the customer' });
      await box.pressSequentially('Let me check', { delay: 20 });
      const agentTyping = customer.locator('[data-support-widget]').locator('.agent-typing');
      await agentTyping.filter({ hasText: 'Sam is typing…' }).waitFor();
      await shot(customer, 'team-tools-widget-agent-typing');

      // The customer's message ends "typing" on the dashboard; the agent's reply ends it in the widget.
      await input.pressSequentially(' my parcel?');
      await input.press('Enter');
      await page.locator('.msg-user', { hasText: 'Any news about my parcel?' }).waitFor();
      await note.filter({ hasText: /^$/ }).waitFor();
      await page.getByRole('button', { name: 'Send reply' }).click();
      await customer.locator('.msg-agent', { hasText: 'Let me check' }).waitFor();
      await agentTyping.waitFor({ state: 'hidden' });
    } finally {
      await context.close();
      await customer.context().close();
    }
  });

  it('works without a ticket once an agent writes in the conversation', async () => {
    const t = await team('No Ticket Shop');
    const customer = await newPage(browser);
    await customer.goto(shopUrl(t.widgetKey));
    await customer.getByRole('button', { name: /^Open .*chat/ }).click();
    const input = customer.getByRole('textbox', { name: 'Message' });
    await input.fill('hello');
    await input.press('Enter');
    await customer.locator('.msg-assistant .bubble').nth(1).waitFor();
    const { conversationId } = JSON.parse(
      (await customer.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
    ) as { conversationId: string };
    const { context, page } = await liveDashboard(t.email);
    try {
      await page.goto(`/inbox/${conversationId}`);
      await page.locator('.live', { hasText: 'Live' }).waitFor();
      const box = page.getByRole('combobox', { name: 'Reply to the customer' });
      await box.pressSequentially('Hi there, how can I help?', { delay: 10 });
      await customer
        .locator('[data-support-widget]')
        .locator('.agent-typing')
        .filter({ hasText: 'Sam is typing…' })
        .waitFor();
      await page.getByRole('button', { name: 'Send reply' }).click();
      await customer.locator('.msg-agent', { hasText: 'how can I help' }).waitFor();
      await input.pressSequentially('I need', { delay: 20 });
      await page.locator('.typing-note', { hasText: 'Customer is typing…' }).waitFor();
    } finally {
      await context.close();
      await customer.context().close();
    }
  });

  it('lets the indicator lapse a few seconds after the last signal', async () => {
    const t = await team('Lapse Shop');
    const customer = await newPage(browser);
    const { conversationId } = await customerEscalates(customer, t.widgetKey);
    const { context, page } = await liveDashboard(t.email);
    try {
      await page.goto(`/inbox/${conversationId}`);
      await page.locator('.live', { hasText: 'Live' }).waitFor();
      await customer.getByRole('textbox', { name: 'Message' }).pressSequentially('hm');
      const note = page.locator('.typing-note');
      await note.filter({ hasText: 'Customer is typing…' }).waitFor();
      const shownAt = Date.now();
      await note.filter({ hasText: /^$/ }).waitFor({ timeout: 10_000 });
      const lasted = Date.now() - shownAt;
      expect(lasted).toBeGreaterThan(4000);
      expect(lasted).toBeLessThan(8000);
    } finally {
      await context.close();
      await customer.context().close();
    }
  });
});
