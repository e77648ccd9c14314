import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  api,
  captureWidths,
  hostUrl,
  launch,
  newDashboardPage,
  newPage,
  newTeam,
  screenshot,
  shopUrl,
  signIn,
} from './browser.ts';

// "Look it up" in the intent editor (an action: the team's endpoint, here the demo shop's order
// endpoint, which checks the signature), its "Try it", the customer's answer in the widget, and
// the action's recent calls.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('intent editor: look it up', () => {
  it('adds an action (its secret shown once), tries it, and the widget answers from the demo order endpoint', async () => {
    const { email, token, widgetKey } = await newTeam('actions', 'Lookup Shop');
    const intents = (await api('GET', '/api/v1/admin/intents', { token })).body.items as Array<{
      id: string;
      name: string;
    }>;
    const id = intents.find((i) => i.name === 'order_status')!.id;
    const { context, page } = await newDashboardPage(browser);
    let actionId = '';
    try {
      await signIn(page, email);
      await page.goto(`/intents/${id}`);
      await page.getByLabel('Action', { exact: true }).selectOption('call');
      await page.getByLabel('Action to call').selectOption('new');
      await page.getByLabel('Action name').fill('Orders');
      await page.getByLabel('Endpoint URL').fill(`${hostUrl()}/api/order-status`);
      await page.getByRole('button', { name: 'Add the action' }).click();
      const panel = page.getByRole('region', { name: 'Signing secret of Orders' });
      await panel.waitFor();
      expect(await panel.locator('code.key').textContent()).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      const actions = (await api('GET', '/api/v1/admin/integrations', { token })).body.items as Array<{
        id: string;
        type: string;
        credentials: { secret: string };
      }>;
      expect(actions).toHaveLength(1);
      actionId = actions[0]!.id;
      expect(actions[0]!.credentials.secret).toMatch(/^\*{4}/);
      // The demo shop has a secret of its own: the team stores that one on the action instead. The
      // longest timeout: the chat request that first reads the saved intent also retrains the
      // tenant's model, which on a loaded CI machine can eat the default 3 s budget.
      const put = await api('PUT', `/api/v1/admin/integrations/${actionId}`, {
        token,
        body: {
          type: 'action',
          name: 'Orders',
          config: { url: `${hostUrl()}/api/order-status`, timeoutMs: 10_000 },
          credentials: { secret: inject('orderSecret') },
        },
      });
      expect(put.status).toBe(200);
      await screenshot(page, 'dashboard-action-secret');
      await panel.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.content()).not.toContain('whsec_');

      await page.getByLabel('Response').fill('Order {{order_id}} is {{data.order.status}}: {{data.order.detail}}.');
      await page
        .getByLabel('When the lookup fails')
        .fill("I can't check order {{order_id}} right now; ask me for a person if it is urgent.");
      await page.getByLabel('Example order_id').fill('12345');
      await page.getByRole('button', { name: 'Try it' }).click();
      const tried = page.locator('.tried');
      await tried.waitFor();
      expect(await tried.locator('.bubble').textContent()).toBe(
        'Order 12345 is shipped: it left our roastery on Monday and should arrive by Thursday.',
      );
      await captureWidths(page, 'dashboard-intent-look-it-up', 'Intent order_status');
      await page.getByRole('button', { name: 'Save the intent' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const saved = (await api('GET', `/api/v1/admin/intents/${id}`, { token })).body;
      expect(saved).toMatchObject({ action: 'call', integrationId: actionId });
    } finally {
      await context.close();
    }

    // The customer, on the shop's own page.
    const shop = await newPage(browser);
    try {
      await shop.goto(shopUrl(widgetKey));
      await shop.getByRole('button', { name: /^Open .*chat/ }).click();
      const input = shop.getByRole('textbox', { name: 'Message' });
      await input.fill('where is my order 12345');
      await input.press('Enter');
      const answer = shop.locator('.msg-assistant .bubble').filter({ hasText: '12345' });
      await answer.waitFor();
      const text = (await answer.textContent()) ?? '';
      // On a failure, the call's own log says why (timeout, status, error), not just the words.
      const calls = text.includes('Order 12345 is shipped')
        ? null
        : (await api('GET', `/api/v1/admin/integrations/${actionId}/calls`, { token })).body;
      expect(text, JSON.stringify(calls)).toContain('Order 12345 is shipped');
      await screenshot(shop, 'widget-order-looked-up');
      await shop.setViewportSize({ width: 360, height: 800 });
      await screenshot(shop, 'widget-order-looked-up-360');
    } finally {
      await shop.context().close();
    }

    // The action's recent calls: the customer's lookup (the try is not kept).
    const admin = await newDashboardPage(browser);
    try {
      await signIn(admin.page, email);
      await admin.page.goto(`/integrations/${encodeURIComponent(actionId)}`);
      const row = admin.page.getByRole('row').filter({ hasText: 'order_status' });
      await row.first().waitFor();
      expect(await row.count()).toBe(1);
      expect(await row.first().textContent()).toMatch(/Ok.*\d+ ms/);
      await captureWidths(admin.page, 'dashboard-action-calls', 'Integration Orders');
    } finally {
      await admin.context.close();
    }
  });
});
