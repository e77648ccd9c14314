import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, chat, memberToken, newTenant, request, type TestTenant } from '../integration/client.ts';
import { customerEscalates, expectAccessible, launch, newPage, shopUrl, shot } from './browser.ts';

// A team's first week, from the customer's side: while the team is away the widget says when it is
// back in one sentence and in the visitor's own clock, and keeps asking for an email across
// reloads until it gets one; the launcher's unread count survives a reload.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const launcher = (page: Page) => page.getByRole('button', { name: /^Open .*chat/ });
const dialog = (page: Page) => page.getByRole('dialog');
const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const emailBox = (page: Page) => page.getByRole('textbox', { name: 'Your email address' });

/** Hours whose only minute is 12 hours from now (in UTC, the tenant's zone): closed whenever the test runs. */
function closedNow() {
  const at = new Date(Date.now() + 12 * 3600_000);
  const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][at.getUTCDay()]!;
  return {
    timezone: 'UTC',
    weekly: { [day]: [[at.toISOString().slice(11, 16), new Date(at.getTime() + 60_000).toISOString().slice(11, 16)]] },
  };
}

/** The clock time the visitor's browser shows for `iso` (en-US, as the page's locale). */
const clock = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone }).format(new Date(iso));

async function awayTenant(): Promise<TestTenant & { nextOpenAt: string }> {
  const t = await newTenant();
  const put = await request('PUT', admin('/settings'), {
    token: t.ownerToken,
    body: { config: { businessHours: closedNow() } },
  });
  expect(put.status).toBe(200);
  const widget = await request('GET', chat('/widget'), { widgetKey: t.widgetKey });
  expect(widget.body.online).toBe(false);
  return { ...t, nextOpenAt: widget.body.nextOpenAt as string };
}

describe('away hours in the widget', () => {
  it("says when the team is back in the visitor's time zone, the same words everywhere, and keeps asking for an email across reloads", async () => {
    const t = await awayTenant();
    // A visitor in India (UTC+5:30): their clock differs from the tenant's (UTC) by hours and minutes.
    const zone = 'Asia/Kolkata';
    const page = await newPage(browser, { timezoneId: zone, locale: 'en-US' });
    const local = clock(t.nextOpenAt, zone);
    expect(local).not.toBe(clock(t.nextOpenAt, 'UTC'));
    const away = new RegExp(
      `^We're away — back (today|tomorrow|on \\w+) at ${local.replace(/\s/g, '\\s')} your time\\.`,
    );

    await page.goto(shopUrl(t.widgetKey));
    await launcher(page).click();
    const status = page.locator('#sw-status');
    await status.waitFor();
    const sentence = (await status.textContent())!;
    expect(sentence).toMatch(away);

    await input(page).fill('my parcel never came');
    await input(page).press('Enter');
    await page.locator('.msg-assistant .bubble').nth(1).waitFor();
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    // The card that asks for a person says it in the same words.
    await dialog(page)
      .getByText(`${sentence} Your request is kept, and a person from our team will reply when they are back.`)
      .waitFor();
    await page.getByRole('button', { name: 'Request a person' }).click();
    await page.locator('.ticket strong').waitFor();
    // So does the card that asks for an email; the assistant's message names no other clock.
    await dialog(page).getByText(`${sentence} Leave your email address and we'll reply to it.`).waitFor();
    const said = (await page.locator('.msg-assistant .bubble').last().textContent())!;
    expect(said).toContain('The team is away right now');
    expect(said).not.toMatch(/\d:\d\d/);
    await expectAccessible(page, 'the away email card');
    await shot(page, 'widget-away-email');

    // A reload: the panel opened again still asks for the email, in the same words.
    await page.reload();
    await launcher(page).click();
    await emailBox(page).waitFor();
    await dialog(page).getByText(`${sentence} Leave your email address and we'll reply to it.`).waitFor();
    expect(await status.textContent()).toBe(sentence);
    await page.setViewportSize({ width: 360, height: 740 });
    await expectAccessible(page, 'the away email card at 360 px after a reload');
    await shot(page, 'widget-away-email-360');

    // Given, it is not asked again.
    await emailBox(page).fill('night@example.com');
    await page.getByRole('button', { name: 'Send my email' }).click();
    await page.getByText("Thank you! We'll reply to night@example.com.").waitFor();
    // The thanks is part of the conversation: the team's reply comes under it, not above.
    const convs = await request('GET', admin('/conversations'), { token: t.ownerToken });
    const reply = await request('POST', admin(`/conversations/${convs.body.items[0].id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Found your parcel, writing to you by email too.' },
    });
    expect(reply.status).toBe(201);
    await page.locator('.msg-agent').getByText('Found your parcel').waitFor();
    const order = await page.locator('ol.messages > li').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    const thanksAt = order.findIndex((x) => x.includes("We'll reply to night@example.com"));
    expect(thanksAt).toBeGreaterThan(0);
    expect(order.findIndex((x) => x.includes('Found your parcel'))).toBe(thanksAt + 1);
    await shot(page, 'widget-away-thanks-then-reply-360');
    await page.reload();
    await launcher(page).click();
    await page.locator('.ticket strong').waitFor();
    await status.waitFor();
    expect(await emailBox(page).count()).toBe(0);
    await page.context().close();
  });
});

describe('the unread badge', () => {
  it('shows the count of replies that came while the panel was closed after a reload, until the panel is opened', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const page = await newPage(browser);
    // The live frames are held until the panel is closed: the handover's own message (shown from the
    // escalation's answer) is then named by its live event with the panel closed. It was seen, and
    // must not count as unread after a reload (it once did, when the event came late).
    let held: (() => void)[] | null = [];
    await page.routeWebSocket(/\/live/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((m) => {
        if (held) held.push(() => ws.send(m));
        else ws.send(m);
      });
    });
    const { conversationId } = await customerEscalates(page, t.widgetKey);
    await page.keyboard.press('Escape');
    for (const release of held) release();
    held = null;
    for (const content of ['Hi, I am on it.', 'Found your parcel.']) {
      const r = await request('POST', admin(`/conversations/${conversationId}/messages`), {
        token: agent.token,
        body: { content },
      });
      expect(r.status).toBe(201);
    }
    await page.getByRole('button', { name: 'Open Test Shop chat, 2 unread' }).waitFor();

    await page.reload();
    await page.getByRole('button', { name: 'Open Test Shop chat, 2 unread' }).waitFor();
    expect(await page.locator('.badge').textContent()).toBe('2');
    expect(await page.locator('.badge').isVisible()).toBe(true);
    await shot(page, 'widget-unread-reload');
    await page.setViewportSize({ width: 360, height: 740 });
    await expectAccessible(page, 'the launcher with its unread count at 360 px');
    await shot(page, 'widget-unread-reload-360');

    // Opened, the messages are read: the badge goes and stays gone after another reload.
    await launcher(page).click();
    expect(await page.locator('.badge').isVisible()).toBe(false);
    await page.keyboard.press('Escape');
    await page.reload();
    await page.getByRole('button', { name: 'Open Test Shop chat', exact: true }).waitFor();
    expect(await page.locator('.badge').isVisible()).toBe(false);

    // A reply that came while no page of the shop was open is counted when the customer comes back.
    await page.goto('about:blank');
    const later = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: agent.token,
      body: { content: 'It is on its way.' },
    });
    expect(later.status).toBe(201);
    await page.goto(shopUrl(t.widgetKey));
    await page.getByRole('button', { name: 'Open Test Shop chat, 1 unread' }).waitFor();
    await launcher(page).click();
    await page.locator('.msg-agent', { hasText: 'It is on its way.' }).waitFor();
    expect(await page.locator('.msg-agent').count()).toBe(3);
    await page.context().close();
  });
});
