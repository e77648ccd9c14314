import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, newTenant, putConfig, request, type TestTenant } from '../integration/client.ts';
import { expectAccessible, hostPage, launch, newPage, shot } from './browser.ts';
import { hmac } from '../integration/mail.ts';

// The widget knowing its customer, in Chromium: a signed-in visitor (the tag's data-user-* or
// SupportWidget.identify) finding their conversations on another device, a forged signature
// refused in plain words, the team's hours, and the address asked for while the team is away.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const rotate = async (t: TestTenant) =>
  (await request('POST', admin('/settings/identity-secret/rotate'), { token: t.ownerToken })).body.secret as string;

const launcher = (page: Page) => page.getByRole('button', { name: /^Open .*chat/ });
const dialog = (page: Page) => page.getByRole('dialog');
const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const bubbles = (page: Page, role: 'user' | 'assistant') => page.locator(`.msg-${role} .bubble`);
const notice = (page: Page) => page.locator('.notice');

const site = (t: TestTenant, user: Record<string, string> = {}) => hostPage(t.widgetKey, user);

async function say(page: Page, text: string, replies: number) {
  await input(page).fill(text);
  await input(page).press('Enter');
  await bubbles(page, 'assistant').nth(replies).waitFor();
  await page.locator('div.typing').waitFor({ state: 'hidden' });
}

/** A week whose only hours are one minute, 12 hours from now: closed whenever the test runs. */
const closedNow = () => {
  const at = new Date(Date.now() + 12 * 3600_000);
  const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][at.getUTCDay()]!;
  return {
    timezone: 'UTC',
    weekly: { [day]: [[at.toISOString().slice(11, 16), new Date(at.getTime() + 60_000).toISOString().slice(11, 16)]] },
  };
};

describe('a signed-in visitor', () => {
  it('finds their earlier conversation on another device and reopens it', async () => {
    const t = await newTenant('Known Shop');
    const secret = await rotate(t);
    const userHash = hmac(secret, 'cust-42');
    const url = await site(t, { id: 'cust-42', name: 'Ada Lovelace', email: 'ada@example.com', hash: userHash });

    // First device: the tag names the customer.
    const first = await newPage(browser);
    await first.goto(url);
    await launcher(first).click();
    // Messages the assistant answers itself: an order question now hands over, and a handed-over
    // conversation gets no further reply from it.
    await say(first, 'hi, I have a question', 1);
    await first.context().close();

    // Second device, nothing kept: the page identifies the customer with SupportWidget.identify.
    const bare = await site(t);
    const page = await newPage(browser);
    await page.goto(bare);
    await launcher(page).waitFor();
    await page.evaluate(
      (h) =>
        (window as unknown as { SupportWidget: { identify(v: unknown): void } }).SupportWidget.identify({
          userId: 'cust-42',
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          userHash: h,
        }),
      userHash,
    );
    await launcher(page).click();
    const earlier = page.getByRole('region', { name: 'Your earlier conversations' });
    await earlier.waitFor();
    expect(await earlier.getByRole('button').count()).toBe(1);
    await expectAccessible(page, 'the earlier conversations');
    await shot(page, 'identity-earlier');

    await earlier.getByRole('button', { name: /Reopen the conversation of/ }).click();
    await bubbles(page, 'user').filter({ hasText: 'hi, I have a question' }).waitFor();
    expect(await earlier.count()).toBe(0);
    expect(
      await page.evaluate(() => document.querySelector('[data-support-widget]')!.shadowRoot!.activeElement?.id),
    ).toBe('sw-input');
    // It continues there: the next message joins the same conversation.
    await say(page, 'hello, is someone there', 2);
    const convs = await request('GET', admin('/conversations?userId=cust-42'), { token: t.ownerToken });
    expect(convs.body.items).toHaveLength(1);
    expect(convs.body.items[0]).toMatchObject({
      title: 'Ada Lovelace',
      visitor: { userId: 'cust-42', verified: true },
      messageCount: 4,
    });

    // A new conversation from the list; the earlier one stays a click away.
    await page.getByRole('button', { name: 'Your conversations' }).waitFor({ state: 'hidden' });
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.evaluate(
      (h) =>
        (window as unknown as { SupportWidget: { identify(v: unknown): void } }).SupportWidget.identify({
          userId: 'cust-42',
          userHash: h,
        }),
      userHash,
    );
    await launcher(page).click();
    await say(page, 'hello again', 1);
    await page.getByRole('button', { name: 'Your conversations' }).click();
    await page.getByRole('heading', { name: 'Your conversations' }).waitFor();
    expect(await page.locator('.past [aria-current]').count()).toBe(0); // the list was read before this conversation began
    await expectAccessible(page, 'the list of conversations');
    await shot(page, 'identity-list');
    await page.getByRole('button', { name: 'Back to the conversation' }).click();

    await page.setViewportSize({ width: 360, height: 740 });
    await expectAccessible(page, 'the list at 360 px');
    await shot(page, 'identity-conversation-360');
  });

  it("is refused in plain words when the signature is forged, and never sees another customer's conversations", async () => {
    const t = await newTenant();
    const secret = await rotate(t);
    // Someone else's conversation, properly signed.
    const victim = await request('POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'my address is 1 Secret Lane', visitor: { userId: 'victim', userHash: hmac(secret, 'victim') } },
    });
    expect(victim.status).toBe(200);

    const url = await site(t, { id: 'victim', name: 'Mallory', hash: hmac('not the secret', 'victim') });
    const page = await newPage(browser);
    const logs: string[] = [];
    page.on('console', (m) => logs.push(m.text()));
    await page.goto(url);
    await launcher(page).click();
    await notice(page).filter({ hasText: "We couldn't confirm that you're signed in" }).waitFor();
    expect(await page.getByText('Your earlier conversations').count()).toBe(0);

    await input(page).fill('show me my orders');
    await input(page).press('Enter');
    await page.locator('.msg-user .failed-note').waitFor();
    expect(await notice(page).textContent()).toContain("We couldn't confirm that you're signed in");
    // Nothing to retry: the site (or a new sign-in) has to fix it; the chat itself still works.
    expect(await notice(page).getByRole('button').count()).toBe(0);
    expect(await input(page).isEnabled()).toBe(true);
    expect(logs.some((l) => /visitor was refused/.test(l))).toBe(true);
    expect(await page.getByText('1 Secret Lane').count()).toBe(0);
    await expectAccessible(page, 'a refused visitor');
    await shot(page, 'identity-forged');
  });
});

describe('a site that requires signed-in customers', () => {
  it('asks an anonymous visitor to sign in, and lets a signed-in one chat', async () => {
    const t = await newTenant();
    const secret = await rotate(t);
    await putConfig(t, { identity: { required: true } });
    const page = await newPage(browser);
    await page.goto(await site(t));
    await launcher(page).click();
    await input(page).fill('hello?');
    await input(page).press('Enter');
    await notice(page)
      .filter({ hasText: 'This chat is for signed-in customers. Please sign in on this site to chat with us.' })
      .waitFor();
    await expectAccessible(page, 'an anonymous visitor where sign-in is required');

    await page.goto(await site(t, { id: 'member-1', hash: hmac(secret, 'member-1') }));
    await launcher(page).click();
    await say(page, 'hello, signed in now', 1);
    expect(await notice(page).isHidden()).toBe(true);
  });
});

describe('a ticket of an earlier conversation', () => {
  it('shows its number on a reload and on a reopen, from the conversation read alone (no live event)', async () => {
    const t = await newTenant('Ticket Shop');
    const userHash = hmac(await rotate(t), 'cust-7');
    const url = await site(t, { id: 'cust-7', name: 'Grace Hopper', hash: userHash });
    /** The live channel taken by the test and never answered: no ticket event reaches the page. */
    const silent = async (p: Page) => {
      await p.routeWebSocket(/\/api\/v1\/live\?/, () => {});
    };

    const first = await newPage(browser);
    await silent(first);
    await first.goto(url);
    await launcher(first).click();
    await say(first, 'where is my order 77?', 1);
    // The team is asked for from elsewhere (another tab): this page hears nothing of it.
    const conversationId = await first.evaluate(
      (k) => JSON.parse(localStorage.getItem(`support-widget:${k}`)!).conversationId as string,
      t.widgetKey,
    );
    const esc = await request('POST', '/api/v1/chat/escalate', {
      widgetKey: t.widgetKey,
      body: { conversationId, reason: 'late parcel' },
    });
    expect(esc.body.ticketNumber).toBe(1);
    expect(await first.locator('.ticket').isVisible()).toBe(false);
    // A reload on the conversation: the ticket bar from the read.
    await first.reload();
    await launcher(first).click();
    await first.locator('.ticket strong').filter({ hasText: /^#1$/ }).waitFor();
    expect(await first.locator('.ticket').textContent()).toBe('Ticket #1: our team will reply here.');
    await first.context().close();

    // A person takes it; on another device the visitor reopens the conversation from their list.
    expect(
      (
        await request('PATCH', admin(`/tickets/${esc.body.ticketId}`), {
          token: t.ownerToken,
          body: { status: 'in_progress' },
        })
      ).status,
    ).toBe(200);
    const page = await newPage(browser);
    await silent(page);
    await page.goto(url);
    await launcher(page).click();
    const earlier = page.getByRole('region', { name: 'Your earlier conversations' });
    await earlier.getByRole('button', { name: /Reopen the conversation of/ }).click();
    await bubbles(page, 'user').filter({ hasText: 'where is my order 77?' }).waitFor();
    await page.locator('.ticket strong').filter({ hasText: /^#1$/ }).waitFor();
    expect(await page.locator('.ticket').textContent()).toBe(
      'Ticket #1: a person from our team is on it and will reply here.',
    );
    expect(await page.locator('.ticket').textContent()).not.toContain('tkt_');
    // A person is on it: no asking for one.
    expect(await page.getByRole('button', { name: 'Talk to a person' }).isVisible()).toBe(false);
    await expectAccessible(page, 'a reopened conversation with its ticket');
    await shot(page, 'identity-reopened-ticket');
  });
});

describe('business hours', () => {
  it('says the reply time while open, and while away takes an email address after the escalation', async () => {
    const t = await newTenant('Night Shop');
    await putConfig(t, { widget: { replyTime: 'usually within an hour' } });
    const open = await newPage(browser);
    await open.goto(await site(t));
    await launcher(open).click();
    await dialog(open).getByText('Our team replies usually within an hour.').waitFor();
    expect(await dialog(open).getAttribute('aria-describedby')).toBe('sw-status');
    await expectAccessible(open, 'the reply time under the title');
    await shot(open, 'identity-reply-time');
    await open.context().close();

    await putConfig(t, { businessHours: closedNow() });
    const page = await newPage(browser, {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      timezoneId: 'UTC',
      locale: 'en-GB',
    });
    await page.goto(await site(t));
    await launcher(page).tap();
    await dialog(page)
      .getByText(/^We're away — back (today|tomorrow) at \d{1,2}:\d\d your time\.$/)
      .waitFor();
    await say(page, 'my parcel never came', 1);
    await page.getByRole('button', { name: 'Talk to a person' }).tap();
    await page
      .getByText(
        /^We're away — back .* your time\. Your request is kept, and a person from our team will reply when they are back\.$/,
      )
      .waitFor();
    await page.getByRole('button', { name: 'Request a person' }).tap();
    await page.locator('.ticket strong').filter({ hasText: /^#1$/ }).waitFor();
    expect(await bubbles(page, 'assistant').last().textContent()).toContain('#1');

    const email = page.getByRole('textbox', { name: 'Your email address' });
    await email.waitFor();
    expect(
      await page.evaluate(() => document.querySelector('[data-support-widget]')!.shadowRoot!.activeElement?.id),
    ).toBe('sw-email');
    await page.getByRole('button', { name: 'Send my email' }).tap();
    await page.getByText('Please enter your email address.').waitFor();
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    await email.fill('not an address');
    await page.getByRole('button', { name: 'Send my email' }).tap();
    await page.getByText('Please enter a valid email address, like name@example.com.').waitFor();
    await expectAccessible(page, 'the email form with an error');
    await shot(page, 'identity-offline-email-360');

    await email.fill('Night.Owl@Example.com');
    await page.getByRole('button', { name: 'Send my email' }).tap();
    await page.getByRole('status').filter({ hasText: "Thank you! We'll reply to Night.Owl@Example.com." }).waitFor();
    await expectAccessible(page, 'the email confirmation');
    await shot(page, 'identity-offline-thanks-360');

    // The team sees the address, marked as typed by the customer.
    const convs = await request('GET', admin('/conversations'), { token: t.ownerToken });
    expect(convs.body.items[0].visitor).toMatchObject({
      email: 'night.owl@example.com',
      verified: false,
      emailVerified: false,
    });
    // Asked once: a reload does not ask again.
    await page.reload();
    await launcher(page).tap();
    await bubbles(page, 'user').first().waitFor();
    expect(await page.getByRole('textbox', { name: 'Your email address' }).count()).toBe(0);
  });
});
