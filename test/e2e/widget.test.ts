import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { admin, baseUrl, chat, newTenant, putConfig, request, send, type TestTenant } from '../integration/client.ts';
import { markdownToBlocks } from '#shared/nlu/index.ts';
import { hostUrl, launch, newPage, servePages, shopUrl, shot } from './browser.ts';

// The widget in headless Chromium on the demo shop (another origin than the API, under a strict
// CSP), against the local runtime: every test makes its own tenant.

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
const bubbles = (page: Page, role: 'user' | 'assistant' | 'agent') => page.locator(`.msg-${role} .bubble`);
const notice = (page: Page) => page.locator('.notice');

/** What has focus inside the widget: its id, else its accessible label, else its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.querySelector('[data-support-widget]')?.shadowRoot?.activeElement as
      | HTMLElement
      | null
      | undefined;
    return el ? el.id || el.getAttribute('aria-label') || el.textContent?.trim() || el.tagName : null;
  });

/** The tenant's own order answer: the starter's hands the order over to a person (and the widget
 *  then says "Sent to our team"), while these tests need the assistant to answer in the conversation. */
async function answersOrders(t: TestTenant) {
  const items = (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items as Array<
    Record<string, unknown>
  >;
  const it = items.find((i) => i.name === 'order_status')!;
  const { name, description, trainingPhrases, entities } = it;
  const put = await request('PUT', admin(`/intents/${it.id}`), {
    token: t.ownerToken,
    body: {
      name,
      description,
      trainingPhrases,
      entities,
      action: 'reply',
      response: 'Order {{order_id}}: its tracking link is in your shipping email.',
    },
  });
  expect(put.status).toBe(200);
}

/** The shop, widget loaded, panel opened with the launcher. */
async function openShop(page: Page, t: TestTenant) {
  await page.goto(shopUrl(t.widgetKey));
  await launcher(page).click();
  await dialog(page).waitFor();
}

/** Types a message as the customer does and waits for the `n`th assistant bubble (the greeting is the first). */
async function say(page: Page, text: string, replies: number) {
  await input(page).fill(text);
  await input(page).press('Enter');
  await bubbles(page, 'assistant').nth(replies).waitFor();
  await page.locator('.typing').waitFor({ state: 'hidden' });
}

const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-request-id,retry-after' };
const problem = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { ...cors, 'content-type': 'application/problem+json', ...headers },
  body: JSON.stringify({ type: 'about:blank', title: 'Error', status, detail: code, code, requestId: 'test' }),
});

describe('the widget on a customer page', () => {
  it('shows the tenant theme and greeting, answers a first message with a typing indicator, under a strict CSP', async () => {
    const t = await newTenant('Bean There');
    await answersOrders(t);
    await putConfig(t, {
      assistant: { greeting: 'Hello from Bean There!' },
      widget: { theme: { color: '#7c2d12', title: 'Bean There help' } },
    });
    const page = await newPage(browser);
    const cspReports: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspReports.push(m.text());
    });
    await page.goto(shopUrl(t.widgetKey));
    const button = page.getByRole('button', { name: 'Open Bean There help chat' });
    await button.waitFor();
    expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(124, 45, 18)');
    await shot(page, 'closed');

    await button.click();
    expect(await dialog(page).getAttribute('aria-labelledby')).toBeTruthy();
    expect(await page.getByRole('dialog', { name: 'Bean There help' }).isVisible()).toBe(true);
    expect(await bubbles(page, 'assistant').first().textContent()).toContain('Hello from Bean There!');
    expect(await focused(page)).toBe('sw-input');
    await shot(page, 'open-greeting');

    // The reply is held back until the typing indicator has been seen.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(`${baseUrl()}/api/v1/chat/message`, async (route) => {
      await held;
      await route.continue();
    });
    await input(page).fill('where is my order 12345?');
    await input(page).press('Enter');
    await page.locator('.typing').waitFor({ state: 'visible' });
    expect(await page.getByRole('status').filter({ hasText: 'The assistant is typing' }).count()).toBe(1);
    release();
    await bubbles(page, 'assistant').nth(1).waitFor();
    await page.locator('.typing').waitFor({ state: 'hidden' });
    expect(await bubbles(page, 'user').first().textContent()).toContain('where is my order 12345?');
    expect(await bubbles(page, 'assistant').nth(1).textContent()).toContain('12345');
    // New messages are announced in a polite live region.
    await page.locator('[aria-live="polite"]').filter({ hasText: 'Assistant says:' }).waitFor({ state: 'attached' });
    await shot(page, 'conversation');
    expect(cspReports).toEqual([]);
  });

  it('keeps the conversation across page loads, per widget key, re-reading its history', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    await say(page, 'hello there', 1);
    await say(page, 'where is my order 777?', 2);
    const stored = await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey);
    const conversationId = JSON.parse(stored!).conversationId as string;
    const server = await request('GET', chat(`/conversations/${conversationId}`), { widgetKey: t.widgetKey });
    expect(server.body.messages).toHaveLength(4);

    // Watched from before the reload: the re-read may start as the widget boots or when it opens.
    const reread = page.waitForRequest(
      (r) => r.url() === `${baseUrl()}/api/v1/chat/conversations/${conversationId}` && r.method() === 'GET',
    );
    await page.reload();
    await launcher(page).click();
    await reread;
    await bubbles(page, 'assistant').nth(2).waitFor();
    expect(await bubbles(page, 'user').allTextContents()).toEqual(['You: hello there', 'You: where is my order 777?']);
    expect(await bubbles(page, 'assistant').nth(2).textContent()).toContain('777');

    // Another tenant's widget on the same site starts its own conversation.
    const other = await newTenant();
    await openShop(page, other);
    expect(await bubbles(page, 'user').count()).toBe(0);
  });

  it('hands over to a person: the ticket number is shown, and kept after a reload', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    await say(page, 'my parcel arrived damaged', 1);
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    const reason = page.getByRole('textbox', { name: 'What do you need help with?' });
    expect(await focused(page)).toBe('sw-reason');
    expect(await reason.inputValue()).toBe('my parcel arrived damaged');
    await reason.fill('Parcel arrived damaged, need a replacement');
    await page.getByRole('button', { name: 'Request a person' }).click();
    const bar = page.locator('.ticket strong');
    await bar.waitFor();
    // The customer sees the ticket's number, never its id.
    expect(await bar.textContent()).toBe('#1');
    expect(await bubbles(page, 'assistant').last().textContent()).toContain('Your ticket number is #1');
    const ticketId = JSON.parse((await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!)
      .ticketId as string;
    expect(await page.locator('.ticket').textContent()).not.toContain(ticketId);
    expect(await page.getByRole('button', { name: 'Talk to a person' }).isVisible()).toBe(false);
    await shot(page, 'escalated');

    const ticket = await request('GET', admin(`/tickets/${ticketId}`), { token: t.ownerToken });
    expect(ticket.status).toBe(200);
    expect(JSON.stringify(ticket.body)).toContain('Parcel arrived damaged, need a replacement');

    await page.reload();
    await launcher(page).click();
    expect(await page.locator('.ticket strong').textContent()).toBe('#1');
  });

  it('asks for a person before any message: the reason becomes the first message', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    await page.getByRole('textbox', { name: 'What do you need help with?' }).fill('I was charged twice for order 4411');
    await page.getByRole('button', { name: 'Request a person' }).click();
    await page.locator('.ticket strong').waitFor();
    expect(await bubbles(page, 'user').allTextContents()).toEqual(['You: I was charged twice for order 4411']);
    const tickets = await request('GET', admin('/tickets'), { token: t.ownerToken });
    expect(tickets.body.items.map((i: { number: number }) => `#${i.number}`)).toEqual([
      await page.locator('.ticket strong').textContent(),
    ]);
  });

  it('shows markup in messages and settings as text and runs none of it', async () => {
    const t = await newTenant();
    const greeting = '<b>Hi</b><script>window.__pwned = 1</script>';
    await putConfig(t, { assistant: { greeting }, widget: { theme: { title: '<i>Shop</i>' } } });
    const page = await newPage(browser);
    await openShop(page, t);
    const payload = '<img src=x onerror="window.__pwned = 2"><svg onload="window.__pwned = 3">';
    await say(page, payload, 1);
    expect(await bubbles(page, 'user').first().textContent()).toBe(`You: ${payload}`);
    expect(await bubbles(page, 'assistant').first().textContent()).toBe(`Assistant: ${greeting}`);
    expect(await page.getByRole('heading', { name: '<i>Shop</i>' }).count()).toBe(1);
    const found = await page.evaluate(() => {
      const root = document.querySelector('[data-support-widget]')!.shadowRoot!;
      return {
        img: root.querySelectorAll('img, script, b, svg[onload]').length,
        pwned: (window as { __pwned?: number }).__pwned,
      };
    });
    expect(found).toEqual({ img: 0, pwned: undefined });
  });

  it('says plainly when its origin is not allowed', async () => {
    const t = await newTenant();
    // Set before the key is first used: widget auth caches a key's tenant and origins for 30 s.
    await putConfig(t, { widget: { allowedOrigins: ['https://shop.example'] } });
    const page = await newPage(browser);
    const logged: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') logged.push(m.text());
    });
    await openShop(page, t);
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: "This chat isn't enabled on this website." }).waitFor();
    expect(await input(page).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Talk to a person' }).isDisabled()).toBe(true);
    expect(logged.some((l) => l.includes(hostUrl()) && l.includes('allowedOrigins'))).toBe(true);
    await shot(page, 'error-origin');

    // Once the host's origin is listed (and the 30 s cache has passed for a fresh key), it works.
    const ok = await newTenant();
    await putConfig(ok, { widget: { allowedOrigins: ['https://shop.example', hostUrl()] } });
    await openShop(page, ok);
    await say(page, 'hello', 1);
  });

  it('is usable with the keyboard alone', async () => {
    const t = await newTenant();
    await answersOrders(t);
    const page = await newPage(browser);
    await page.goto(shopUrl(t.widgetKey));
    // Named after the tenant once its settings are read (the launcher is drawn before).
    await page.getByRole('button', { name: 'Open Test Shop chat' }).waitFor();
    // Tabbing reaches the launcher after the page's own links and buttons.
    const inWidget = () => page.evaluate(() => document.activeElement?.hasAttribute('data-support-widget') ?? false);
    for (let i = 0; i < 30 && !(await inWidget()); i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Open Test Shop chat');
    await page.keyboard.press('Enter');
    await dialog(page).waitFor();
    expect(await focused(page)).toBe('sw-input');
    await page.keyboard.type('where is my order 31415?');
    await page.keyboard.press('Enter');
    await bubbles(page, 'assistant').nth(1).waitFor();
    expect(await bubbles(page, 'assistant').nth(1).textContent()).toContain('31415');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Send message');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Talk to a person');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('sw-reason');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Request a person');
    await page.keyboard.press('Enter');
    await page.locator('.ticket strong').waitFor();
    expect(await focused(page)).toBe('sw-input');
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await focused(page)).toBe('Open Test Shop chat');
    await page.keyboard.press('Enter');
    await dialog(page).waitFor();
    // Backwards from the message field: the close button is reachable too.
    await page.keyboard.press('Shift+Tab');
    if ((await focused(page)) !== 'Close chat') await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Close chat');
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'hidden' });
  });

  it('keeps its look on a page with hostile global CSS, and leaves the page and its globals as they were', async () => {
    const t = await newTenant();
    const script = `<script src="${baseUrl()}/widget.js" data-widget-key="${t.widgetKey}" async></script>`;
    const hostile = `<style>
      * { all: unset !important; font-size: 40px !important; color: red !important; line-height: 5 !important; }
      div, button, textarea, ol, li, h2, p, span, svg { display: inline !important; position: static !important; width: 10px !important; height: 10px !important; background: yellow !important; }
      [data-support-widget] { display: none !important; transform: scale(0.2) !important; opacity: 0 !important; }
      html { font-size: 5px !important; } body { letter-spacing: 6px !important; text-transform: uppercase !important; }
      :root { --sw-accent: lime; }
    </style>`;
    const page = (
      style: string,
      withWidget: boolean,
    ) => `<!doctype html><html lang="en"><head><title>Host</title>${style}</head>
      <body><h1>A host page</h1><p class="copy">Some copy.</p><button type="button">Buy</button>${withWidget ? script : ''}</body></html>`;
    const site = await servePages({
      '/plain': page('', true),
      '/hostile': page(hostile, true),
      '/bare': page('', false),
    });
    onTestFinished(() => site.stop());
    const p = await newPage(browser);

    const measure = async () => {
      await launcher(p).click();
      await say(p, 'where is my order 2468?', 1);
      return p.evaluate(() => {
        const root = document.querySelector('[data-support-widget]')!.shadowRoot!;
        const pick = (sel: string) => {
          const el = root.querySelector(sel)!;
          const s = getComputedStyle(el);
          const r = el.getBoundingClientRect();
          return [
            sel,
            Math.round(r.x),
            Math.round(r.y),
            Math.round(r.width),
            Math.round(r.height),
            s.color,
            s.backgroundColor,
            s.fontSize,
            s.fontFamily,
            s.textTransform,
            s.letterSpacing,
            s.display,
            s.opacity,
          ].join(' ');
        };
        return ['.launcher', '.panel', '.head h2', '.msg-user .bubble', '.msg-assistant .bubble', '#sw-input', '.send']
          .map(pick)
          .concat(getComputedStyle(root.host).display, getComputedStyle(root.host).transform);
      });
    };
    await p.goto(`${site.url}/plain`);
    const plain = await measure();
    await p.goto(`${site.url}/hostile`);
    const underAttack = await measure();
    expect(underAttack).toEqual(plain);
    await shot(p, 'hostile-css');

    // The page's own styles and globals, with and without the widget.
    const hostState = () =>
      p.evaluate(() => ({
        styles: ['h1', '.copy', 'button', 'body'].map((sel) => {
          const s = getComputedStyle(document.querySelector(sel)!);
          return [sel, s.fontSize, s.fontFamily, s.color, s.backgroundColor, s.margin, s.lineHeight, s.boxSizing].join(
            ' ',
          );
        }),
        globals: Object.getOwnPropertyNames(window).sort(),
      }));
    await p.goto(`${site.url}/bare`);
    const without = await hostState();
    await p.goto(`${site.url}/plain`);
    await launcher(p).waitFor();
    const withWidget = await hostState();
    expect(withWidget.styles).toEqual(without.styles);
    expect(withWidget.globals.filter((g) => !without.globals.includes(g))).toEqual(['SupportWidget']);
  });

  it('answers to window.SupportWidget and to its data- options', async () => {
    const t = await newTenant();
    const site = await servePages({
      '/options': `<!doctype html><html lang="en"><head><title>Options</title></head><body><button id="help" type="button">Help</button>
        <script src="${baseUrl()}/widget.js" data-widget-key="${t.widgetKey}" data-position="left" data-open="true" async></script></body></html>`,
    });
    onTestFinished(() => site.stop());
    const p = await newPage(browser);
    await p.goto(`${site.url}/options`);
    await dialog(p).waitFor();
    const box = await p.locator('.launcher').boundingBox();
    expect(box!.x).toBeLessThan(100);
    await p.evaluate(() => window.SupportWidget!.close());
    await dialog(p).waitFor({ state: 'hidden' });
    // Opened from the page's own button, focus goes back to it on Escape.
    await p.locator('#help').focus();
    await p.evaluate(() => window.SupportWidget!.open());
    await dialog(p).waitFor();
    await p.keyboard.press('Escape');
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('help');
    await p.evaluate(() => window.SupportWidget!.destroy());
    expect(
      await p.evaluate(() => ({
        host: document.querySelectorAll('[data-support-widget]').length,
        handle: typeof window.SupportWidget,
      })),
    ).toEqual({ host: 0, handle: 'undefined' });
  });

  it('counts replies that arrive while the panel is closed', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(`${baseUrl()}/api/v1/chat/message`, async (route) => {
      await held;
      await route.continue();
    });
    await input(page).fill('where is my order 99?');
    await input(page).press('Enter');
    await page.keyboard.press('Escape');
    release();
    const unread = page.getByRole('button', { name: 'Open Test Shop chat, 1 unread' });
    await unread.waitFor();
    expect(await page.locator('.badge').textContent()).toBe('1');
    await unread.click();
    expect(await page.locator('.badge').isVisible()).toBe(false);
  });
});

describe('when things go wrong', () => {
  it('waits out a 429 as Retry-After says, then sends the same request again', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    const keys: string[] = [];
    await page.route(`${baseUrl()}/api/v1/chat/message`, (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      return keys.length === 1 ? route.fulfill(problem(429, 'RATE_LIMITED', { 'retry-after': '2' })) : route.continue();
    });
    await input(page).fill('where is my order 555?');
    await input(page).press('Enter');
    await notice(page)
      .filter({ hasText: "You're sending messages faster than we can answer. We'll try again in 2 seconds." })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).isDisabled()).toBe(true);
    await bubbles(page, 'assistant').nth(1).waitFor();
    expect(await notice(page).isVisible()).toBe(false);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('shows the real rate limit of a conversation', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    await say(page, 'hello', 1);
    const conversationId = JSON.parse(
      (await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
    ).conversationId;
    // 30 messages a minute per conversation (a fixed window): send until the API refuses one (on a
    // slow machine the first 40 can straddle a minute's end, 30 in neither window: go on into the
    // next); if the window ends within seconds, wait for the next one and fill it again, so the
    // widget's message lands in a full window.
    const fill = async () => {
      for (let i = 0; i < 100; i++) {
        const r = await send(t, `message ${i}`, conversationId);
        if (r.status === 429) return Number(r.headers.get('retry-after'));
        expect(r.status).toBe(200);
      }
      throw new Error('no 429 after 100 messages');
    };
    let retryAfter = await fill();
    if (retryAfter < 15) {
      await new Promise((r) => setTimeout(r, (retryAfter + 1) * 1000));
      retryAfter = await fill();
    }
    await input(page).fill('one more');
    await input(page).press('Enter');
    await notice(page)
      .filter({ hasText: /faster than we can answer\. We'll try again in \d+ seconds?\./ })
      .waitFor();
    expect(await page.locator('.msg-user.failed').count()).toBe(1);
  });

  it('offers a retry after a server failure, and the retry goes through', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    const keys: string[] = [];
    await page.route(`${baseUrl()}/api/v1/chat/message`, (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      return keys.length === 1 ? route.fulfill(problem(500, 'INTERNAL')) : route.continue();
    });
    await input(page).fill('where is my order 808?');
    await input(page).press('Enter');
    await notice(page).filter({ hasText: 'Something went wrong on our side. Please try again.' }).waitFor();
    expect(await page.locator('.failed-note').textContent()).toBe('Not sent');
    await shot(page, 'error-failing');
    await page.getByRole('button', { name: 'Try again' }).click();
    await bubbles(page, 'assistant').nth(1).waitFor();
    expect(await page.locator('.failed-note').count()).toBe(0);
    expect(keys[1]).toBe(keys[0]);
    // One conversation, one user message: nothing was stored twice.
    const conversationId = JSON.parse(
      (await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
    ).conversationId;
    const r = await request('GET', chat(`/conversations/${conversationId}`), { widgetKey: t.widgetKey });
    expect(r.body.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(1);
  });

  it('says when the browser is offline and sends once it is back', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    await page.context().setOffline(true);
    await input(page).fill('where is my order 4040?');
    await input(page).press('Enter');
    await notice(page).filter({ hasText: "You're offline." }).waitFor();
    await page.context().setOffline(false);
    await bubbles(page, 'assistant').nth(1).waitFor();
    expect(await notice(page).isVisible()).toBe(false);
  });
});

describe('the live channel (frames given by the test through a routed WebSocket, shaped as docs/API.md describes events and the live channel)', () => {
  const event = (type: string, tenantId: string, data: unknown) =>
    JSON.stringify({ id: crypto.randomUUID(), type, timestamp: new Date().toISOString(), tenantId, data });

  it('shows agent replies and ticket changes as they arrive, counts them while closed, and asks for a rating when resolved', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    const sockets: import('playwright-core').WebSocketRoute[] = [];
    await page.routeWebSocket(/\/api\/v1\/live\?/, (ws) => {
      sockets.push(ws);
    });
    await openShop(page, t);
    await say(page, 'my parcel arrived damaged', 1);
    const conversationId = JSON.parse(
      (await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
    ).conversationId as string;
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    await page.getByRole('button', { name: 'Request a person' }).click();
    await page.locator('.ticket strong').waitFor();
    const ticketId = (await page.locator('.ticket strong').textContent())!;
    expect(sockets).toHaveLength(1);
    const url = new URL(sockets[0]!.url());
    expect([url.pathname, url.searchParams.get('widgetKey'), url.searchParams.get('conversationId')]).toEqual([
      '/api/v1/live',
      t.widgetKey,
      conversationId,
    ]);

    const ws = sockets[0]!;
    const ticket = (status: string) => ({ id: ticketId, conversationId, status, priority: 'medium' });
    ws.send(
      event('ticket.updated', t.tenantId, {
        ticket: ticket('in_progress'),
        changes: { status: { from: 'open', to: 'in_progress' } },
      }),
    );
    await page.locator('.ticket').filter({ hasText: 'a person from our team is on it' }).waitFor();
    const agentMessage = {
      id: crypto.randomUUID(),
      role: 'agent',
      content: 'Hi, Sam here. <b>Sorry</b> about that!',
      createdAt: new Date().toISOString(),
      author: { name: 'Sam' },
    };
    ws.send(event('message.created', t.tenantId, { conversationId, message: agentMessage }));
    await bubbles(page, 'agent').first().waitFor();
    expect(await page.locator('.msg-agent').textContent()).toBe(
      'Sam · support teamHi, Sam here. <b>Sorry</b> about that!',
    );
    await page
      .locator('[aria-live="polite"]')
      .filter({ hasText: 'Sam says: Hi, Sam here.' })
      .waitFor({ state: 'attached' });
    // The same event again (at-least-once delivery), and another conversation's: nothing new.
    ws.send(event('message.created', t.tenantId, { conversationId, message: agentMessage }));
    ws.send(
      event('message.created', t.tenantId, {
        conversationId: crypto.randomUUID(),
        message: { ...agentMessage, id: crypto.randomUUID(), content: 'not yours' },
      }),
    );
    ws.send('not json');

    await page.getByRole('button', { name: 'Close chat' }).first().click();
    ws.send(
      event('message.created', t.tenantId, {
        conversationId,
        message: { ...agentMessage, id: crypto.randomUUID(), content: 'A new mug is on its way.' },
      }),
    );
    await page.getByRole('button', { name: 'Open Test Shop chat, 1 unread' }).waitFor();
    await shot(page, 'closed-unread');
    await launcher(page).click();
    expect(await bubbles(page, 'agent').allTextContents()).toEqual([
      'Hi, Sam here. <b>Sorry</b> about that!',
      'A new mug is on its way.',
    ]);

    ws.send(
      event('ticket.updated', t.tenantId, {
        ticket: ticket('resolved'),
        changes: { status: { from: 'in_progress', to: 'resolved' } },
      }),
    );
    const rating = page.getByRole('group', { name: /How would you rate the help you got/ });
    await rating.waitFor();
    const rated = new Promise<unknown>((resolve) => {
      void page.route(`${baseUrl()}/api/v1/chat/conversations/${conversationId}/rating`, (route) => {
        resolve(route.request().postDataJSON());
        return route.fulfill({
          status: 200,
          headers: { ...cors, 'content-type': 'application/json' },
          body: JSON.stringify({
            rating: { score: 4, comment: 'Quick and kind', createdAt: new Date().toISOString() },
          }),
        });
      });
    });
    await page.getByRole('radio', { name: '4' }).check();
    await page.getByRole('textbox', { name: 'Comment (optional)' }).fill('Quick and kind');
    await shot(page, 'rating');
    await page.getByRole('button', { name: 'Send rating' }).click();
    expect(await rated).toEqual({ score: 4, comment: 'Quick and kind' });
    await page.getByText('Thank you for your rating!').waitFor();
    // A reload reads the ticket from the service, which these made-up frames never reached: resolve it there too.
    const [real] = (await request('GET', admin('/tickets'), { token: t.ownerToken })).body.items;
    expect(
      (await request('PATCH', admin(`/tickets/${real.id}`), { token: t.ownerToken, body: { status: 'resolved' } }))
        .status,
    ).toBe(200);
    await page.reload();
    await launcher(page).click();
    await page.locator('.ticket').filter({ hasText: 'resolved' }).waitFor();
    expect(await rating.count()).toBe(0);
  });

  it('reconnects after the socket drops and shows what was said meanwhile, once', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    const sockets: import('playwright-core').WebSocketRoute[] = [];
    await page.routeWebSocket(/\/api\/v1\/live\?/, (ws) => {
      sockets.push(ws);
    });
    await openShop(page, t);
    await say(page, 'hello', 1);
    const conversationId = JSON.parse(
      (await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
    ).conversationId as string;
    expect(sockets).toHaveLength(1);
    // Said in another tab, and never delivered on this page's socket, which then drops.
    expect((await send(t, 'where is my order 2718?', conversationId)).status).toBe(200);
    const reread = page.waitForRequest((r) => r.url().endsWith(`/api/v1/chat/conversations/${conversationId}`));
    await sockets[0]!.close({ code: 1001, reason: 'going away' });
    await reread;
    await bubbles(page, 'assistant').nth(2).waitFor();
    expect(sockets).toHaveLength(2);
    expect(await bubbles(page, 'user').allTextContents()).toEqual(['You: hello', 'You: where is my order 2718?']);
    // The re-read brings the messages this page already had too: none is shown twice.
    expect(await bubbles(page, 'assistant').count()).toBe(3);
  });
});

describe('knowledge-base answers (API answers shaped as the knowledge base of docs/API.md, given by the test)', () => {
  const returnsBody =
    '# Returns\n\nYou can return **any** item within _30 days_.\n\n<img src=x onerror="window.__pwned=2">\n\n- Pack it\n- Post it\n\nSee [our form](https://help.example/form).';
  it('links sources, opens an article without url inside the panel as plain text, and goes back', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t);
    const now = new Date().toISOString();
    await page.route(`${baseUrl()}/api/v1/chat/message`, (route) =>
      route.fulfill({
        status: 200,
        headers: { ...cors, 'content-type': 'application/json' },
        body: JSON.stringify({
          conversationId: '7f0c1c2e-8d4b-4b5e-9a51-2f3c4d5e6f70',
          message: {
            id: '0c7e4b55-1f6a-4f0e-9d1b-3a2b4c5d6e7f',
            role: 'assistant',
            content: 'You can return any item within 30 days.',
            createdAt: now,
          },
          metadata: {
            intentDetected: 'knowledge_base',
            confidence: 0.8,
            entitiesExtracted: {},
            intentRanking: [],
            sources: [
              { articleId: 'returns', title: 'Returns policy', url: null },
              { articleId: 'shipping', title: 'Shipping times', url: 'https://help.example/shipping' },
              { articleId: 'evil', title: 'Evil link', url: 'javascript:window.__pwned=1' },
            ],
          },
        }),
      }),
    );
    await page.route(`${baseUrl()}/api/v1/chat/articles/returns`, (route) =>
      route.fulfill({
        status: 200,
        headers: { ...cors, 'content-type': 'application/json' },
        body: JSON.stringify({
          article: {
            id: 'returns',
            title: 'Returns policy',
            url: null,
            updatedAt: now,
            body: returnsBody,
            // As the service reduces the body, plus a block that looks like HTML: the widget shows blocks as text.
            blocks: [...markdownToBlocks(returnsBody), '<img src=x onerror="window.__pwned=3">'],
          },
        }),
      }),
    );
    await say(page, 'can I return a mug?', 1);
    const link = page.getByRole('link', { name: 'Shipping times (opens in a new tab)' });
    expect(await link.getAttribute('href')).toBe('https://help.example/shipping');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);

    const source = page.getByRole('button', { name: 'Returns policy' });
    await source.click();
    const heading = page.getByRole('heading', { name: 'Returns policy' });
    await page.locator('.article p').filter({ hasText: 'You can return any item within 30 days.' }).waitFor();
    const text = await page.locator('.article').textContent();
    expect(
      await page
        .locator('.article p')
        .filter({ hasText: /^Pack it$/ })
        .count(),
    ).toBe(1);
    expect(text).toContain('See our form.');
    expect(text).toContain('<img src=x onerror="window.__pwned=3">');
    expect(text).not.toContain('**');
    expect(
      await page.evaluate(() => ({
        img: document.querySelector('[data-support-widget]')!.shadowRoot!.querySelectorAll('.article img').length,
        pwned: (window as { __pwned?: number }).__pwned,
      })),
    ).toEqual({ img: 0, pwned: undefined });
    expect(await heading.isVisible()).toBe(true);
    await shot(page, 'article');
    await page.getByRole('button', { name: 'Back to the conversation' }).click();
    expect(await focused(page)).toBe('Returns policy');
  });
});

describe('accessibility and small screens', () => {
  const axe = (page: Page) =>
    new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const summary = (r: Awaited<ReturnType<typeof axe>>) =>
    r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);

  it('has no WCAG 2.2 AA violations closed, open, in a conversation, escalating, escalated and refused, with a light tenant colour', async () => {
    const t = await newTenant('Sunny Shop');
    await answersOrders(t);
    // Yellow: white text on it would fail; the widget must switch to dark text and darker links.
    await putConfig(t, { widget: { theme: { color: '#fde047' } } });
    const page = await newPage(browser);
    await page.goto(shopUrl(t.widgetKey));
    await launcher(page).waitFor();
    expect(summary(await axe(page))).toEqual([]);
    await launcher(page).click();
    expect(summary(await axe(page))).toEqual([]);
    await say(page, 'where is my order 123?', 1);
    expect(summary(await axe(page))).toEqual([]);
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    expect(summary(await axe(page))).toEqual([]);
    await page.getByRole('button', { name: 'Request a person' }).click();
    await page.locator('.ticket strong').waitFor();
    expect(summary(await axe(page))).toEqual([]);
    expect(await page.locator('.launcher').evaluate((b) => getComputedStyle(b).color)).toBe('rgb(17, 24, 39)');
    await shot(page, 'light-colour');

    const refused = await newTenant();
    await putConfig(refused, { widget: { allowedOrigins: ['https://shop.example'] } });
    await openShop(page, refused);
    await page.getByRole('alert').filter({ hasText: "isn't enabled" }).waitFor();
    expect(summary(await axe(page))).toEqual([]);
  });

  it('fills a 360 px wide screen and works there', async () => {
    const t = await newTenant();
    const page = await newPage(browser, {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    await page.goto(shopUrl(t.widgetKey));
    await launcher(page).tap();
    await dialog(page).waitFor();
    expect(await dialog(page).boundingBox()).toEqual({ x: 0, y: 0, width: 360, height: 740 });
    await say(page, 'where is my order?', 1);
    await say(page, 'and can I get a refund for a broken mug please, it arrived in pieces', 2);
    const fits = await page.evaluate(() => {
      const root = document.querySelector('[data-support-widget]')!.shadowRoot!;
      const body = root.querySelector('.body')!;
      const inside = (sel: string) => {
        const r = root.querySelector(sel)!.getBoundingClientRect();
        return r.left >= 0 && r.right <= 360 && r.bottom <= 740;
      };
      return {
        noSideScroll: body.scrollWidth <= body.clientWidth,
        input: inside('#sw-input'),
        send: inside('.send'),
        close: inside('.head .icon-btn'),
      };
    });
    expect(fits).toEqual({ noSideScroll: true, input: true, send: true, close: true });
    // The panel covers the page here: it is modal, and Tab goes round inside it.
    expect(await dialog(page).getAttribute('aria-modal')).toBe('true');
    const seen = new Set<string | null>();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-support-widget'))).toBe(true);
      seen.add(await focused(page));
    }
    expect(seen).toContain('Close chat');
    expect(seen).toContain('sw-input');
    expect(summary(await axe(page))).toEqual([]);
    await shot(page, 'mobile-360');
    await page.getByRole('button', { name: 'Close chat' }).tap();
    await dialog(page).waitFor({ state: 'hidden' });
  });
});
