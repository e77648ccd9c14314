import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, chat, newTenant, request } from '../integration/client.ts';
import { launch, newPage, shopUrl, shot } from './browser.ts';

// The widget's rough edges: a send clicked twice is one message, the reason given when asking for
// a person stays in the customer's transcript, and a knowledge answer keeps its article's bold,
// links and lists as elements, with the article's link shown once. Every test makes its own tenant.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const launcher = (page: Page) => page.getByRole('button', { name: /^Open .*chat/ });
const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const bubbles = (page: Page, role: 'user' | 'assistant') => page.locator(`.msg-${role} .bubble`);
const storedConversation = (page: Page, widgetKey: string) =>
  page.evaluate(
    (k) => JSON.parse(localStorage.getItem(`support-widget:${k}`) ?? '{}').conversationId as string,
    widgetKey,
  );

async function openShop(page: Page, widgetKey: string) {
  await page.goto(shopUrl(widgetKey));
  await launcher(page).click();
  await page.getByRole('dialog').waitFor();
}

describe('widget rough edges', () => {
  it('sends one message for a double click on Send', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    const posts: (string | null)[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/v1/chat/message'))
        posts.push(r.headers()['idempotency-key'] ?? null);
    });
    await openShop(page, t.widgetKey);
    await input(page).fill('where is my order 12345?');
    await page.getByRole('button', { name: 'Send message' }).dblclick();
    await bubbles(page, 'assistant').nth(1).waitFor();
    await page.locator('div.typing').waitFor({ state: 'hidden' });
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatch(/^[0-9a-f]{32}$/);
    const id = await storedConversation(page, t.widgetKey);
    const history = await request('GET', chat(`/conversations/${id}`), { widgetKey: t.widgetKey });
    expect((history.body.messages as { role: string }[]).filter((m) => m.role === 'user')).toHaveLength(1);
    expect(await bubbles(page, 'user').count()).toBe(1);
  });

  it('shows the reason given when asking for a person in the transcript, and keeps it after a reload', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await openShop(page, t.widgetKey);
    await input(page).fill('my parcel arrived damaged');
    await input(page).press('Enter');
    await bubbles(page, 'assistant').nth(1).waitFor();
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    await page
      .getByRole('textbox', { name: 'What do you need help with?' })
      .fill('The mug is broken, I would like a replacement');
    await page.getByRole('button', { name: 'Request a person' }).dblclick();
    await page.locator('.ticket strong').waitFor();
    const reason = page.locator('.msg-user', { hasText: 'The mug is broken, I would like a replacement' });
    await reason.waitFor();
    expect(await reason.locator('.who').textContent()).toBe('You asked for a person');
    // Before the assistant's answer that names the ticket.
    const texts = await page.locator('.messages > li').allTextContents();
    const at = texts.findIndex((x) => x.includes('The mug is broken'));
    expect(at).toBeGreaterThan(-1);
    expect(texts.slice(at + 1).some((x) => x.includes('Your ticket number is #1'))).toBe(true);
    // One ticket for the double click.
    expect((await request('GET', admin('/tickets'), { token: t.ownerToken })).body.items).toHaveLength(1);
    await shot(page, 'rough-escalation-reason');

    await page.reload();
    await launcher(page).click();
    await page.locator('.msg-user', { hasText: 'The mug is broken, I would like a replacement' }).waitFor();
    expect(await page.locator('.msg-user', { hasText: 'The mug is broken' }).count()).toBe(1);
  });

  it('shows a knowledge answer with its bold, link and list as elements, and the article link once', async () => {
    const t = await newTenant();
    const created = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: {
        title: 'Gift wrapping',
        url: 'https://help.shop.example/gift-wrapping',
        questions: ['do you offer gift wrapping?', 'can you wrap my order as a present?'],
        body:
          'Tick **This is a gift** at checkout and we wrap your order for free. See [our gift page](https://shop.example/gifts) for the papers.\n\n' +
          'The wrapping includes:\n\n- Recycled paper\n- A handwritten card\n',
      },
    });
    expect(created.status).toBe(201);
    const page = await newPage(browser);
    await openShop(page, t.widgetKey);
    await input(page).fill('do you offer gift wrapping?');
    await input(page).press('Enter');
    const answer = bubbles(page, 'assistant').nth(1);
    await answer.waitFor();
    await page.locator('div.typing').waitFor({ state: 'hidden' });
    expect(await answer.locator('strong').allTextContents()).toContain('This is a gift');
    const link = answer.locator('a', { hasText: 'our gift page' });
    expect(await link.getAttribute('href')).toBe('https://shop.example/gifts');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await answer.textContent()).toContain('Tick This is a gift at checkout');
    // The article's URL: once, as the source link under the answer, not again as text.
    const msg = page.locator('.msg-assistant').nth(1);
    expect((await msg.innerHTML()).split('https://help.shop.example/gift-wrapping').length - 1).toBe(1);
    expect(await msg.locator('.sources a').getAttribute('href')).toBe('https://help.shop.example/gift-wrapping');
    expect(await answer.textContent()).not.toContain('Gift wrapping: https://');
    await shot(page, 'rough-knowledge-formatted');

    // A list item of the article, when the answer holds one, is a list item on screen.
    await input(page).fill('what does the gift wrapping include?');
    await input(page).press('Enter');
    const second = bubbles(page, 'assistant').nth(2);
    await second.waitFor();
    await page.locator('div.typing').waitFor({ state: 'hidden' });
    expect(await second.locator('ul > li').allTextContents()).toEqual(['Recycled paper', 'A handwritten card']);
    expect(await second.textContent()).not.toContain('https://help.shop.example');

    // After a reload the history shows the same formatting and sources.
    await page.reload();
    await launcher(page).click();
    const again = bubbles(page, 'assistant').nth(1);
    await again.locator('strong').first().waitFor();
    expect(await again.locator('strong').allTextContents()).toContain('This is a gift');
    expect(await page.locator('.msg-assistant').nth(1).locator('.sources a').getAttribute('href')).toBe(
      'https://help.shop.example/gift-wrapping',
    );
    await shot(page, 'rough-knowledge-list');
  });
});
