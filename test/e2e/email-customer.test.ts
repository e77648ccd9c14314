import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  captureWidths,
  expectAccessible,
  hostPage,
  launch,
  newDashboardPage,
  newPage,
  shot,
  newTeam,
  signIn,
} from './browser.ts';
import { hmac, PASS, smtp } from '../integration/mail.ts';
import { eventually } from '../support/eventually.ts';

// One customer across the widget and email, in Chromium: a visitor the site signed (id and
// address) finds their email thread among their conversations in the widget and reads it there
// (answered by email); the dashboard's customer panel of the thread lists their widget chat; and a
// reply whose recipient is refused when sending shows as bounced, with what was answered.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const mail = (m: Mail.Options) => smtp().sendMail(m);

const conversationsOf = async (token: string, q: string) =>
  (await api('GET', `/api/v1/admin/conversations?${q}`, { token })).body.items as Array<{
    id: string;
    subject: string | null;
  }>;

describe('one customer across widget and email', () => {
  it("the widget lists the verified customer's email thread read-only; the panel links both; a refused reply shows", async () => {
    const { email: owner, token, widgetKey } = await newTeam('owner', 'Linked Lamp Shop');
    const secret = (await api('POST', '/api/v1/admin/settings/identity-secret/rotate', { token })).body
      .secret as string;
    const inbound = (await api('GET', '/api/v1/admin/settings', { token })).body.config.email.inboundAddress as string;
    const address = 'ada.lamp@customer.example';
    const user = {
      id: 'cust-lamp',
      name: 'Ada Lamp',
      email: address,
      hash: hmac(secret, 'cust-lamp'),
      'email-hash': hmac(secret, address),
    };

    // A widget chat, signed; then an email from the same address, passing SPF, DKIM and DMARC.
    const chat = await api('POST', '/api/v1/chat/message', {
      widgetKey,
      body: {
        message: 'do you ship lamps abroad?',
        visitor: {
          userId: user.id,
          name: user.name,
          email: address,
          userHash: user.hash,
          emailHash: user['email-hash'],
        },
      },
    });
    expect(chat.status).toBe(200);
    await mail({
      from: `Ada Lamp <${address}>`,
      to: inbound,
      subject: 'My lamp arrived broken',
      text: 'The shade is cracked.',
      headers: PASS,
    });
    await eventually(async () => expect((await conversationsOf(token, 'channel=email')).length).toBe(1));
    const [thread] = await conversationsOf(token, 'channel=email');

    // The widget, on a fresh device: the thread among the earlier conversations, read-only.
    const page = await newPage(browser);
    try {
      await page.goto(await hostPage(widgetKey, user));
      await page.getByRole('button', { name: /^Open .*chat/ }).click();
      const earlier = page.getByRole('region', { name: 'Your earlier conversations' });
      const item = earlier.getByRole('button', { name: /Email “My lamp arrived broken”/ });
      await item.waitFor();
      expect(await earlier.getByRole('button').count()).toBe(2);
      await shot(page, 'email-linked-earlier');
      await item.click();
      await page.locator('.msg-user .bubble', { hasText: 'The shade is cracked.' }).waitFor();
      const input = page.getByRole('textbox', { name: 'Message' });
      await eventually(async () => expect(await input.isDisabled()).toBe(true));
      expect(await input.getAttribute('placeholder')).toBe('Reply to the email to continue');
      // It began with the customer's mail, not a chat greeting, and the team answers it by email.
      await page.locator('.ticket', { hasText: 'our team will reply by email.' }).waitFor();
      expect(await page.getByText('Hi! How can I help you today?').isVisible()).toBe(false);
      await expectAccessible(page, 'an email thread in the widget');
      await shot(page, 'email-linked-thread');
      await page.setViewportSize({ width: 360, height: 740 });
      await shot(page, 'email-linked-thread-360');
    } finally {
      await page.context().close();
    }

    // A second thread whose reply the recipient's server refuses.
    await mail({
      from: 'gone@refused.localhost',
      to: inbound,
      subject: 'Is this address right?',
      text: 'Please answer.',
    });
    await eventually(async () => expect((await conversationsOf(token, 'channel=email')).length).toBe(2));
    const refused = (await conversationsOf(token, 'channel=email')).find(
      (c) => c.subject === 'Is this address right?',
    )!;

    const { context, page: dash } = await newDashboardPage(browser);
    try {
      await signIn(dash, owner);
      // The thread's customer panel lists the widget chat of the same verified customer.
      await dash.goto(`/inbox/${thread!.id}`);
      await dash.getByRole('heading', { level: 2, name: 'My lamp arrived broken' }).waitFor();
      const panel = dash.getByRole('region', { name: 'Customer' });
      await panel.getByRole('heading', { name: 'Their other conversations' }).waitFor();
      await panel.getByRole('link', { name: 'do you ship lamps abroad?' }).waitFor();
      await captureWidths(dash, 'email-linked-panel', 'Inbox');

      await dash.goto(`/inbox/${refused.id}`);
      await dash.getByLabel('Reply to the customer').fill('Yes, it is.');
      await dash.getByRole('button', { name: 'Send reply' }).click();
      await dash.getByRole('button', { name: 'Save the name and send' }).click();
      // Stored before reading again (a reload would cancel the request in flight).
      await dash.locator('.msg-agent').waitFor();
      await eventually(
        async () => {
          await dash.reload();
          await dash.locator('.msg-agent').waitFor();
          expect(
            await dash.locator('.msg-meta-bad', { hasText: 'Email bounced: the address is suppressed' }).count(),
          ).toBe(1);
        },
        { timeout: 15_000, interval: 500 },
      );
      await dash
        .locator('.msg-meta-bad .delivery-reason', { hasText: /^the recipient was refused: 550 5\.1\.1/ })
        .waitFor();
      await captureWidths(dash, 'email-refused-reply', 'Inbox');
    } finally {
      await context.close();
    }
  });
});
