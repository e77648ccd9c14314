import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSISTANT_DEFAULTS } from '#shared/core/vocabulary.ts';
import {
  api,
  launch,
  newDashboardPage,
  newEmail,
  newPage,
  screenshot,
  shopUrl,
  shot,
  signIn,
  tokenForEmail,
} from './browser.ts';

// Handing over (issue: a team's first week, item 3): a customer whose first message asks for a
// person is handed over at once, in one sentence, and the reason typed in the widget's form is a
// message of the conversation that the team reads in the dashboard's transcript.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const bubbles = (page: Page, role: 'user' | 'assistant') => page.locator(`.msg-${role} .bubble`);
const HANDED = 'Your ticket number is #1; a person will get back to you here.';

async function tenant() {
  const email = newEmail('handover');
  const token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Handover Shop' } });
  expect(onboard.status).toBe(201);
  return { email, widgetKey: onboard.body.widgetKey as string };
}

async function openWidget(page: Page, widgetKey: string) {
  await page.goto(shopUrl(widgetKey));
  await page.getByRole('button', { name: /^Open .*chat/ }).click();
  await page.getByRole('dialog').waitFor();
}

const conversationOf = async (page: Page, widgetKey: string) =>
  (
    JSON.parse((await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), widgetKey))!) as {
      conversationId: string;
    }
  ).conversationId;

describe.each([
  { width: 1280, height: 800, label: '' },
  { width: 360, height: 740, label: '-360' },
])('handing over at $width px', ({ width, height, label }) => {
  const viewport = { viewport: { width, height }, ...(width < 400 ? { isMobile: true, hasTouch: true } : {}) };

  it('a first message asking for a person hands over at once, in one sentence', async () => {
    const t = await tenant();
    const page = await newPage(browser, viewport);
    await openWidget(page, t.widgetKey);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('can I talk to a human');
    await input.press('Enter');
    await page.locator('.ticket strong').waitFor();
    await bubbles(page, 'assistant').nth(1).waitFor();
    const said = await bubbles(page, 'assistant').allTextContents();
    expect(said.slice(1)).toEqual([`Assistant: I am handing you over to our team. ${HANDED}`]);
    expect(said.join(' ')).not.toContain(ASSISTANT_DEFAULTS.fallbackMessage);
    await shot(page, `handover-first-message${label}`);
    await page.context().close();
  });

  it("a reason typed in the form is the handover: no other answer, and the dashboard's transcript shows it", async () => {
    const t = await tenant();
    const page = await newPage(browser, viewport);
    await openWidget(page, t.widgetKey);
    const reason = 'The grinder I got makes a loud rattling noise';
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    await page.getByRole('textbox', { name: 'What do you need help with?' }).fill(reason);
    await page.getByRole('button', { name: 'Request a person' }).click();
    await page.locator('.ticket strong').waitFor();
    await bubbles(page, 'assistant').nth(1).waitFor();
    expect(await bubbles(page, 'user').allTextContents()).toEqual([`You: ${reason}`]);
    expect(await page.locator('.msg-user .who').textContent()).toBe('You asked for a person');
    // The greeting, then the handover alone: the assistant did not answer the reason first.
    expect((await bubbles(page, 'assistant').allTextContents()).slice(1)).toEqual([
      `Assistant: I've passed this conversation to our support team. ${HANDED}`,
    ]);
    await shot(page, `handover-reason${label}`);
    const conversationId = await conversationOf(page, t.widgetKey);
    await page.context().close();

    const { context, page: dash } = await newDashboardPage(browser);
    try {
      await dash.setViewportSize({ width, height });
      await signIn(dash, t.email);
      await dash.goto(`/inbox/${conversationId}`);
      const typed = dash.locator('.messages .msg-user', { hasText: reason });
      await typed.waitFor();
      expect(await typed.locator('.msg-who').textContent()).toContain('Customer');
      const handed = dash.locator('.messages .msg-assistant').last();
      expect(await handed.locator('.msg-meta').textContent()).toContain('Handed over: the customer asked for a person');
      await typed.scrollIntoViewIfNeeded();
      await screenshot(dash, `dashboard-handover-reason${label}`);
    } finally {
      await context.close();
    }
  });
});
