import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, memberToken, newTenant, request, type TestTenant } from '../integration/client.ts';
import { expectAccessible, launch, newPage, shopUrl, shot } from './browser.ts';

// The widget with the routes of docs/API.md's human handoff, live channel and knowledge base as the
// server implements them: the live channel's WebSocket, agent messages, ratings and knowledge-base
// answers; each test needs those routes in the local runtime.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const launcher = (page: Page) => page.getByRole('button', { name: /^Open .*chat/ });
const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const bubbles = (page: Page, role: 'user' | 'assistant' | 'agent') => page.locator(`.msg-${role} .bubble`);

async function say(page: Page, text: string, replies: number) {
  await input(page).fill(text);
  await input(page).press('Enter');
  await bubbles(page, 'assistant').nth(replies).waitFor();
  await page.locator('.typing').waitFor({ state: 'hidden' });
}

/** The shop with the widget open, one exchange, then handed to a person: the conversation and ticket ids. */
async function escalated(page: Page, t: TestTenant) {
  await page.goto(shopUrl(t.widgetKey));
  await launcher(page).click();
  await say(page, 'my parcel arrived damaged', 1);
  await page.getByRole('button', { name: 'Talk to a person' }).click();
  await page.getByRole('button', { name: 'Request a person' }).click();
  await page.locator('.ticket strong').waitFor();
  const stored = JSON.parse(
    (await page.evaluate((k) => localStorage.getItem(`support-widget:${k}`), t.widgetKey))!,
  ) as { conversationId: string; ticketId: string };
  return { conversationId: stored.conversationId, ticketId: stored.ticketId };
}

const agentSays = async (token: string, conversationId: string, content: string) => {
  const r = await request('POST', admin(`/conversations/${conversationId}/messages`), { token, body: { content } });
  if (r.status !== 201) throw new Error(`agent message: ${r.status} ${r.text}`);
  return r.body.message as { id: string };
};

describe('the live channel, with the service', () => {
  it('shows an agent reply as it arrives, with the agent name, and no assistant reply while a person handles it', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    expect(
      (await request('PATCH', admin('/auth/me'), { token: agent.token, body: { displayName: 'Sam' } })).status,
    ).toBe(200);
    const page = await newPage(browser);
    const { conversationId } = await escalated(page, t);

    await agentSays(agent.token, conversationId, 'Hi, Sam here. <b>Sorry</b> about that!');
    await bubbles(page, 'agent').first().waitFor();
    expect(await page.locator('.msg-agent').first().textContent()).toBe(
      'Sam · support teamHi, Sam here. <b>Sorry</b> about that!',
    );
    // The first agent message moves the ticket to in_progress (ticket.updated on the socket).
    await page.locator('.ticket').filter({ hasText: 'a person from our team is on it' }).waitFor();

    const assistantBefore = await bubbles(page, 'assistant').count();
    const answered = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/chat/message') && r.request().method() === 'POST',
    );
    await input(page).fill('thanks, when will the new one arrive?');
    await input(page).press('Enter');
    const body = (await (await answered).json()) as { message: unknown; handledBy?: string };
    expect(body).toMatchObject({ message: null, handledBy: 'agent' });
    await page.locator('.typing').waitFor({ state: 'hidden' });
    expect(await bubbles(page, 'assistant').count()).toBe(assistantBefore);

    await page.keyboard.press('Escape');
    await agentSays(agent.token, conversationId, 'Tomorrow morning.');
    await page.getByRole('button', { name: 'Open Test Shop chat, 1 unread' }).waitFor();
    await launcher(page).click();
    // The user message sent above came back on the socket too: shown once.
    expect(await bubbles(page, 'user').allTextContents()).toEqual([
      'You: my parcel arrived damaged',
      'You: thanks, when will the new one arrive?',
    ]);
    expect(await bubbles(page, 'agent').allTextContents()).toEqual([
      'Hi, Sam here. <b>Sorry</b> about that!',
      'Tomorrow morning.',
    ]);
  });

  it('after the hand-over, before any person answers, says the team will answer here and shows no assistant reply', async () => {
    const t = await newTenant();
    const page = await newPage(browser);
    await escalated(page, t);
    const assistantBefore = await bubbles(page, 'assistant').count();
    const answered = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/chat/message') && r.request().method() === 'POST',
    );
    await input(page).fill('also, the handle of the mug is chipped');
    await input(page).press('Enter');
    expect(await (await answered).json()).toMatchObject({ message: null, handledBy: 'agent' });
    await page.locator('.held-note').waitFor();
    expect(await page.locator('.msg-user').last().locator('.held-note').textContent()).toBe(
      'Sent to our team: a person will answer here.',
    );
    await page.locator('.typing').waitFor({ state: 'hidden' });
    expect(await bubbles(page, 'assistant').count()).toBe(assistantBefore);
    // The ticket is still open: the bar says so, not that a person is on it.
    expect(await page.locator('.ticket').textContent()).toMatch(/our team will reply here/);
    await expectAccessible(page, 'the widget after the hand-over');
    await shot(page, 'widget-handed-over');
    await page.setViewportSize({ width: 360, height: 740 });
    await shot(page, 'widget-handed-over-360');
  });

  it('asks for a rating when the ticket is resolved, and the service stores it', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const page = await newPage(browser);
    const { conversationId, ticketId } = await escalated(page, t);
    await agentSays(agent.token, conversationId, 'A new mug is on its way.');
    await bubbles(page, 'agent').first().waitFor();
    expect(
      (await request('PATCH', admin(`/tickets/${ticketId}`), { token: agent.token, body: { status: 'resolved' } }))
        .status,
    ).toBe(200);

    await page.getByRole('group', { name: /How would you rate the help you got/ }).waitFor();
    await page.getByRole('radio', { name: '5' }).check();
    await page.getByRole('textbox', { name: 'Comment (optional)' }).fill('Quick and kind');
    const rated = page.waitForResponse((r) => r.url().endsWith(`/api/v1/chat/conversations/${conversationId}/rating`));
    await page.getByRole('button', { name: 'Send rating' }).click();
    const r = await rated;
    expect(r.status()).toBe(200);
    expect((await r.json()).rating).toMatchObject({ score: 5, comment: 'Quick and kind' });
    await page.getByText('Thank you for your rating!').waitFor();
    const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
    expect(stats.body.kpis).toMatchObject({ ratings: 1, csat: 5 });
  });
});
describe('knowledge-base answers, with the service', () => {
  it('links the sources of an answer and opens an article without url inside the panel, as plain text', async () => {
    const t = await newTenant();
    // A subject no starter intent covers, so that the article, not an intent, answers.
    const article = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: {
        title: 'Washing a wool sweater',
        body: '# Wool care\n\nWash **wool** sweaters by hand in cold water with a mild wool detergent, then dry them flat.\n\n- Never tumble dry\n- Reshape while damp',
        questions: ['how do I wash my wool jumper', 'can wool go in the dryer'],
      },
    });
    expect(article.status).toBe(201);
    const page = await newPage(browser);
    await page.goto(shopUrl(t.widgetKey));
    await launcher(page).click();
    await say(page, 'Can my wool jumper go in the dryer?', 1);
    expect(await bubbles(page, 'assistant').nth(1).textContent()).toContain('Never tumble dry');
    await page.getByRole('button', { name: 'Washing a wool sweater' }).click();
    await page.locator('.article p').filter({ hasText: 'Wash wool sweaters by hand in cold water' }).waitFor();
    await page
      .locator('.article p')
      .filter({ hasText: /^Never tumble dry$/ })
      .waitFor();
    expect(await page.locator('.article').textContent()).not.toContain('**');
    await page.getByRole('button', { name: 'Back to the conversation' }).click();
    await bubbles(page, 'assistant').nth(1).waitFor();
  });
});
