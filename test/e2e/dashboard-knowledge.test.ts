import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newEmail, signIn, tokenForEmail } from './browser.ts';

// The Knowledge screen in headless Chromium: the article editor's Markdown
// preview (never an HTML string), the import of a JSON file, and "Try a message" answering from an
// article with its source. The tests run in order and share one team.

let browser: Browser;
let owner: { context: BrowserContext; page: Page };
const email = newEmail('kb-owner');
let token = '';

// A topic that none of a new team's starter intents covers, so the assistant answers from it.
const ASK = 'Do you wrap presents with a handwritten card?';
const WRAPPING = {
  title: 'Gift wrapping',
  url: 'https://help.example.com/gift-wrapping',
  body: [
    '# Gift wrapping',
    '',
    'We wrap any order as a **gift** in recycled paper with a handwritten card, for 3 euros per parcel.',
    '',
    '<img src=x onerror="window.__pwned = 1">',
    '',
    '- Tick *Gift wrap* at checkout',
    "- Write the card's message in [your basket](https://shop.example.com/basket)",
    '',
    'Never [this link](javascript:window.__pwned=2).',
  ].join('\n'),
  questions: ['can you wrap my order as a present', 'do you offer gift wrapping'],
};

beforeAll(async () => {
  browser = await launch();
  token = await tokenForEmail(email);
  const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Knowledge Shop' } });
  expect(onboard.status).toBe(201);
  owner = await newDashboardPage(browser);
  await signIn(owner.page, email);
});
afterAll(async () => {
  await browser?.close();
});

describe('knowledge', () => {
  it("previews an article's Markdown as elements: bold is bold, HTML stays text and runs nothing, links are safe", async () => {
    const { page } = owner;
    await page.goto('/knowledge');
    await page.getByRole('link', { name: 'New article' }).click();
    await page.getByRole('heading', { level: 1, name: 'New article' }).waitFor();
    await page.getByLabel('Title').fill(WRAPPING.title);
    await page.getByLabel('Body').fill(WRAPPING.body);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.locator('strong', { hasText: 'gift' }).waitFor();
    expect(await preview.locator('img').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await preview.textContent()).toContain('<img src=x onerror="window.__pwned = 1">');
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    const links = preview.locator('a');
    expect(await links.count()).toBe(1);
    expect(await links.first().getAttribute('href')).toBe('https://shop.example.com/basket');
    expect(await links.first().getAttribute('rel')).toBe('noopener noreferrer');
    // The javascript: link keeps its text, without any address.
    expect(await preview.getByText('this link').evaluate((e) => e.closest('a'))).toBeNull();

    await page.getByLabel('Page URL').fill(WRAPPING.url);
    await page.getByLabel('Tags').fill('gifts, checkout');
    await page.getByLabel('Other ways to ask').fill(WRAPPING.questions.join('\n'));
    await page.getByRole('button', { name: 'Save the article' }).click();
    await page.getByText('Saved. The next chat message uses it.').waitFor();
    await page.getByRole('heading', { level: 1, name: WRAPPING.title }).waitFor();
    await captureWidths(page, 'dashboard-knowledge-editor', WRAPPING.title);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

    const list = await api('GET', '/api/v1/admin/articles', { token });
    expect(list.body.items).toMatchObject([
      { title: WRAPPING.title, url: WRAPPING.url, tags: ['gifts', 'checkout'], status: 'published' },
    ]);
  });

  it('imports a JSON file, tells what it created and updated, and names a bad article by its index', async () => {
    const { page } = owner;
    await page.goto('/knowledge');
    const file = page.getByLabel('JSON file');
    const articles = [
      {
        title: 'Shipping times',
        body: 'Orders ship within **2 working days**; delivery takes 3 to 5 days.',
        url: 'https://help.example.com/shipping',
        tags: ['shipping'],
      },
      { title: 'Paying by invoice', body: 'Business customers can pay by invoice within 30 days.', status: 'draft' },
      // The url of the article written above: it replaces it.
      {
        title: WRAPPING.title,
        body: 'We wrap any order as a gift in recycled paper with a handwritten card, for 3 euros per parcel.',
        url: WRAPPING.url,
        questions: WRAPPING.questions,
      },
    ];
    await file.setInputFiles({
      name: 'articles.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ articles })),
    });
    await page.getByRole('button', { name: 'Import 3 articles' }).click();
    await page.getByText('Imported articles.json: 2 created, 1 updated.').waitFor();
    await page.getByRole('link', { name: 'Shipping times' }).waitFor();
    await page.getByRole('link', { name: 'Paying by invoice' }).waitFor();
    await captureWidths(page, 'dashboard-knowledge-import', 'Knowledge');

    // Not JSON: said before anything is sent.
    await file.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('title: Shipping') });
    await page.getByText(/This file is not JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);

    // One bad article: the service's 400 names it, and nothing is written.
    const bad = [
      articles[0],
      { title: '', body: 'No title here.' },
      { title: 'Gift cards', body: 'Gift cards never expire.', url: 'http://help.example.com/gift' },
    ];
    await file.setInputFiles({
      name: 'bad.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bad)),
    });
    await page.getByRole('button', { name: 'Import 3 articles' }).click();
    const errors = page.locator('.import-errors li');
    await errors.first().waitFor();
    const texts = await errors.allTextContents();
    expect(texts.some((t) => /^Article 2 of the file: its title .+\.$/.test(t))).toBe(true);
    expect(texts.some((t) => /^Article 3 of the file \(“Gift cards”\): its url must be an https URL\.$/.test(t))).toBe(
      true,
    );
    await page.getByText('Nothing was imported:', { exact: false }).waitFor();
    await captureWidths(page, 'dashboard-knowledge-import-error', 'Knowledge');
    expect((await api('GET', '/api/v1/admin/articles', { token })).body.items).toHaveLength(3);

    await page.goto('/audit?category=knowledge');
    // The audit reads as words: the action `articles.imported`.
    await page
      .getByText(/articles imported/i)
      .first()
      .waitFor();
    expect(await page.getByLabel('Category').inputValue()).toBe('knowledge');
  });

  it('answers "Try a message" from an article as the chat would, with its source, asking as the admin types', async () => {
    const { page } = owner;
    await page.goto('/knowledge');
    const box = page.getByLabel('Customer message');
    const parses: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/admin/nlu/parse')) parses.push(r.postData() ?? '');
    });
    await box.pressSequentially(ASK, { delay: 20 });
    const result = page.getByRole('status').filter({ hasText: 'The assistant would answer' });
    await result.waitFor();
    await result.getByText(/^(Answered|Detected|Falls back)/).waitFor();
    expect(await result.innerText()).toContain('Answered from the help articles');
    await result.getByText(/Answered from the help articles, confidence \d/).waitFor();
    expect(await result.locator('.bubble').textContent()).toContain('3 euros');
    const source = result.getByRole('link', { name: WRAPPING.title, exact: true });
    expect(await source.getAttribute('href')).toBe(WRAPPING.url);
    expect(await source.getAttribute('rel')).toBe('noopener noreferrer');
    // Debounced: not one request per key.
    expect(parses.length).toBeGreaterThanOrEqual(1);
    expect(parses.length).toBeLessThanOrEqual(4);
    expect(JSON.parse(parses.at(-1)!)).toEqual({ message: ASK });
    await captureWidths(page, 'dashboard-knowledge-try', 'Knowledge');

    await box.fill('zebra crossing quantum');
    await result.getByText(/^Falls back/).waitFor();
    expect(await result.getByRole('link', { name: WRAPPING.title, exact: true }).count()).toBe(0);
  });
});
