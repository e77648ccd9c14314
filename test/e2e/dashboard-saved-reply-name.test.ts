import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newTeam, signIn } from './browser.ts';
import { eventually } from '../support/eventually.ts';

// A saved reply that names the agent, picked by a member who has not chosen the name customers see:
// the name is asked first, and is what fills {{agent.name}}; {{visitor.firstName}} is the first word
// of the customer's name.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('saved-reply placeholders', () => {
  it('asks for the name before filling them, and greets the customer by first name', async () => {
    const { email, token, widgetKey } = await newTeam('jordan', 'Placeholder Bikes');
    expect(
      (
        await api('POST', '/api/v1/admin/saved-replies', {
          token,
          body: {
            shortcut: 'hello',
            title: 'Hello',
            body: 'Hi {{visitor.firstName}}, {{agent.name}} here about ticket #{{ticket.number}}.',
          },
        })
      ).status,
    ).toBe(201);
    const first = await api('POST', '/api/v1/chat/message', {
      widgetKey,
      body: { message: 'my gravel king arrived bent', visitor: { userId: 'carl-1', name: 'Carl Mendes' } },
    });
    const conversationId = first.body.conversationId as string;
    expect(
      (await api('POST', '/api/v1/chat/escalate', { widgetKey, body: { conversationId, reason: 'bent' } })).status,
    ).toBe(200);

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto(`/inbox/${conversationId}`);
      const box = page.getByRole('combobox', { name: 'Reply to the customer' });
      await box.click();
      await box.pressSequentially('/hel');
      await page.getByRole('listbox', { name: 'Saved replies' }).waitFor();
      await box.press('Enter');
      // Asked first: nothing is filled in with the default name meanwhile.
      await page.getByRole('group', { name: 'Your name on replies' }).waitFor();
      expect(await box.inputValue()).not.toContain('here about');
      await page.getByLabel('Name customers see').fill('Jordan P.');
      await captureWidths(page, 'saved-reply-name-first', 'Inbox');
      await page.getByRole('button', { name: 'Save the name', exact: true }).click();
      await eventually(async () => expect(await box.inputValue()).toBe('Hi Carl, Jordan P. here about ticket #1.'));
      expect(await page.getByLabel('Name customers see').count()).toBe(0);
      // Named now: the reply goes straight out, signed with that name.
      await page.getByRole('button', { name: 'Send reply' }).click();
      const sent = page.locator('.msg-agent').filter({ hasText: 'Hi Carl, Jordan P. here' });
      await sent.waitFor();
      expect(await sent.locator('.msg-who').textContent()).toMatch(/^Jordan P\. · /);
    } finally {
      await context.close();
    }
  });
});
