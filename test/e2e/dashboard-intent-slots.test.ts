import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newTeam, signIn } from './browser.ts';

// The intent editor's question for a missing entity (a required entity, as slot elicitation):
// what the assistant asks before it answers, saved with the intent and used by the next message.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('intent editor: asking for a missing entity', () => {
  it('shows the starter order_status question, and a changed one is what the next message asks', async () => {
    const { email, token, widgetKey } = await newTeam('slots', 'Slots Shop');
    const intents = (await api('GET', '/api/v1/admin/intents', { token })).body.items as Array<{
      id: string;
      name: string;
    }>;
    const id = intents.find((i) => i.name === 'order_status')!.id;

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto(`/intents/${id}`);
      const ask = page.getByLabel('Entity 1: ask when missing');
      await ask.waitFor();
      expect(await ask.inputValue()).toBe(
        'Which order is it? Please give me the order number from your confirmation email.',
      );
      await captureWidths(page, 'dashboard-intent-slot', 'order_status');
      await ask.fill('What is your order number?');
      await page.getByRole('button', { name: 'Save the intent' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    } finally {
      await context.close();
    }
    const asked = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'where is my order' } });
    expect(asked.body.message.content).toBe('What is your order number?');
    const stored = await api('GET', `/api/v1/admin/intents/${id}`, { token });
    expect(stored.body.entities).toEqual([
      { name: 'order_id', type: 'order_id', required: true, prompt: 'What is your order number?' },
    ]);
  });

  it("starts an intent from a template, and saves it only once every blank holds the team's own fact", async () => {
    const { email, token, widgetKey } = await newTeam('templates', 'Kiln Shop');
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto('/intents');
      await page.getByRole('heading', { name: 'Start from a template' }).waitFor();
      await captureWidths(page, 'dashboard-intent-templates', 'Intents');
      await page.getByRole('link', { name: 'Returns and exchanges' }).click();
      const response = page.getByLabel('Response');
      await response.waitFor();
      expect(await response.inputValue()).toContain('[number of days]');
      const create = page.getByRole('button', { name: 'Create the intent' });
      expect(await create.isDisabled()).toBe(true);
      await captureWidths(page, 'dashboard-intent-template-blanks', 'New intent: Returns and exchanges');
      await response.fill(
        'You can send unopened items back within 14 days of delivery; the return postage is yours to pay.',
      );
      await create.click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    } finally {
      await context.close();
    }
    const asked = await api('POST', '/api/v1/chat/message', {
      widgetKey,
      body: { message: 'what is your return policy' },
    });
    expect(asked.body.message.content).toBe(
      'You can send unopened items back within 14 days of delivery; the return postage is yours to pay.',
    );
    const stored = (await api('GET', '/api/v1/admin/intents', { token })).body.items.find(
      (i: { name: string }) => i.name === 'returns',
    );
    expect(stored).toMatchObject({ starter: false, enabled: true });
  });
});
