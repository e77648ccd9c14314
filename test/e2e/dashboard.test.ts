import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  baseUrl,
  capture,
  expectAccessible,
  launch,
  newEmail,
  newDashboardPage,
  screenshot,
  signIn,
  tokenForEmail,
} from './browser.ts';
import { eventually } from '../support/eventually.ts';

// The dashboard in headless Chromium against the local runtime: a team signs in through the
// local issuer's page, onboards, and works conversations, tickets, intents and settings. The
// tests of this file run in order and share the team they create.

let browser: Browser;
let owner: { context: BrowserContext; page: Page };
const ownerEmail = newEmail('owner');
const viewerEmail = newEmail('viewer');
let widgetKey = '';
let ownerToken = '';
let conversationId = '';
let ticketId = '';
/** The ticket as the dashboard names it: its number, `Ticket #1`. */
let ticketName = '';

const chat = (message: string, conversation?: string) =>
  api('POST', '/api/v1/chat/message', {
    widgetKey,
    body: { message, ...(conversation ? { conversationId: conversation } : {}) },
  });
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
const moves = (page: Page) => page.getByRole('group', { name: 'Move to' }).getByRole('button').allTextContents();

beforeAll(async () => {
  browser = await launch();
  owner = await newDashboardPage(browser);
  await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
});
afterAll(async () => {
  await browser?.close();
});

describe('dashboard', () => {
  it('signs in through the local issuer page and onboards a team, showing the widget key and snippet once', async () => {
    const { page } = owner;
    await page.goto('/');
    await capture(page, 'dashboard-sign-in', 'Support dashboard');

    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/local-idp\/authorize\?/);
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('response_type')).toBe('code');
    await expectAccessible(page, 'the local issuer sign-in page');
    await screenshot(page, 'dashboard-issuer-sign-in');
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await capture(page, 'dashboard-onboarding', 'Set up your team');
    // The server's field error is shown next to its field.
    await page.getByRole('button', { name: 'Create the team' }).click();
    const name = page.getByLabel('Team or company name');
    await eventually(async () => expect(await name.getAttribute('aria-invalid')).toBe('true'));
    await eventually(async () => expect(await page.locator('.field-error').textContent()).toBe('Must not be empty.'));

    await name.fill('E2E Shop');
    await page.getByRole('button', { name: 'Create the team' }).click();
    await capture(page, 'dashboard-onboarded', 'Your team is ready');
    widgetKey = (await page.locator('code.key').textContent()) ?? '';
    expect(widgetKey).toMatch(/^wk_/);
    const snippet = `<script src="${baseUrl()}/widget.js" data-widget-key="${widgetKey}" async></script>`;
    expect(await page.locator('.snippet pre').textContent()).toBe(snippet);
    await page.getByRole('button', { name: 'Copy the snippet' }).click();
    await eventually(async () => expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(snippet));

    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.locator('.brand').textContent()).toBe('E2E Shop');
    // The key is shown once: nothing on the dashboard repeats it.
    expect(await page.content()).not.toContain(widgetKey);
    ownerToken = await tokenForEmail(ownerEmail);
    expect((await api('GET', '/api/v1/admin/auth/me', { token: ownerToken })).body.role).toBe('owner');
  });

  it('shows the overview of the period with top intents and recent conversations', async () => {
    const first = await chat('hello');
    expect(first.status).toBe(200);
    conversationId = first.body.conversationId;
    // The starter order_status asks for the number (given one, it would hand the conversation over).
    expect((await chat('where is my order?', conversationId)).status).toBe(200);
    expect((await chat('what are your opening hours?')).status).toBe(200);
    const article = await api('POST', '/api/v1/admin/articles', {
      token: ownerToken,
      body: {
        title: 'Washing a wool sweater',
        questions: ['can wool go in the dryer'],
        body: 'Wash wool sweaters by hand in cold water with a mild detergent, then dry them flat. Never tumble dry wool.',
      },
    });
    expect(article.status).toBe(201);
    expect((await chat('Can my wool jumper go in the dryer?')).body.metadata.intentDetected).toBe('knowledge_base');

    const { page } = owner;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const kpi = (label: string) => page.locator('.kpi', { hasText: label }).locator('dd').textContent();
    await eventually(async () => expect(await kpi('Conversations')).toBe('3'));
    expect(await kpi('Customer messages')).toBe('4');
    expect(await kpi('Answered from articles')).toBe('1');
    // Counted 30 minutes after a conversation's last message: none yet.
    expect(await kpi('Resolved by the assistant')).toBe('0 % (0)');
    expect(await page.getByRole('region', { name: 'Top intents' }).textContent()).toContain('greeting');
    expect(
      await page
        .getByRole('region', { name: 'Top help articles' })
        .getByRole('link', { name: 'Washing a wool sweater' })
        .count(),
    ).toBe(1);
    expect(await page.getByRole('region', { name: 'Recent conversations' }).getByRole('link').count()).toBe(3);
    await page.getByLabel('Period', { exact: true }).selectOption('7');
    await capture(page, 'dashboard-overview', 'Overview');
  });

  it("reads a conversation in the inbox with each assistant message's intent and confidence", async () => {
    const { page } = owner;
    await nav(page, 'Inbox').click();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    // Conversations are named by their visitor ("Visitor 1234" for an anonymous one), never by a message.
    await page.locator(`a[href="/inbox/${conversationId}"]`).click();
    await page.waitForURL(`**/inbox/${conversationId}`);
    const messages = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
    await eventually(async () => expect(await messages.count()).toBe(4));
    const meta = await page.locator('.msg-assistant .msg-meta').allTextContents();
    expect(meta[0]).toMatch(/intent greeting · confidence \d/);
    expect(meta[1]).toMatch(/intent order_status/);
    await page.getByLabel('Needs').selectOption('waiting_for_us');
    await page.getByText('No conversation: waiting for us.').waitFor();
    await page.getByLabel('Needs').selectOption('');
    await capture(page, 'dashboard-inbox', 'Inbox');
  });

  it('moves a ticket through the transitions docs/API.md allows and never offers the others', async () => {
    const esc = await api('POST', '/api/v1/chat/escalate', {
      widgetKey,
      body: { conversationId, reason: 'The parcel has not arrived' },
    });
    expect(esc.status).toBe(200);
    ticketId = esc.body.ticketId;
    ticketName = `Ticket #${esc.body.ticketNumber}`;

    const { page } = owner;
    await nav(page, 'Tickets').click();
    await page.getByRole('link', { name: ticketName }).waitFor();
    await capture(page, 'dashboard-tickets', 'Tickets');
    await page.getByRole('link', { name: ticketName }).click();
    await page.getByRole('heading', { level: 1, name: ticketName }).waitFor();

    await eventually(async () => expect(await moves(page)).toEqual(['In progress', 'Waiting', 'Resolved', 'Closed']));
    await capture(page, 'dashboard-ticket', ticketName);
    await page.getByRole('button', { name: 'Waiting' }).click();
    await eventually(async () => expect(await moves(page)).toEqual(['In progress', 'Resolved', 'Closed']));
    await page.getByLabel('Priority').selectOption('urgent');
    await eventually(async () =>
      expect((await api('GET', `/api/v1/admin/tickets/${ticketId}`, { token: ownerToken })).body.ticket.priority).toBe(
        'urgent',
      ),
    );
    await page.getByRole('button', { name: 'Resolved' }).click();
    await eventually(async () => expect(await moves(page)).toEqual(['Open', 'Closed']));
    await page.getByRole('button', { name: 'Closed' }).click();
    await page.getByText('A closed ticket changes no more.').waitFor();
    expect(await page.getByRole('group', { name: 'Move to' }).count()).toBe(0);

    const t = await api('GET', `/api/v1/admin/tickets/${ticketId}`, { token: ownerToken });
    expect(t.body.ticket.status).toBe('closed');
    const trail = page.getByRole('region', { name: 'Audit trail' }).locator('ol.trail > li');
    await eventually(async () => expect(await trail.count()).toBe(t.body.auditTrail.length));
    expect(t.body.auditTrail.length).toBeGreaterThanOrEqual(5);
  });

  it('edits an intent, shows field errors next to fields, and the next chat message uses it', async () => {
    const { page } = owner;
    await nav(page, 'Intents').click();
    await page.getByRole('link', { name: 'greeting', exact: true }).waitFor();
    await capture(page, 'dashboard-intents', 'Intents');
    await page.getByRole('link', { name: 'greeting', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Intent greeting' }).waitFor();

    await page.getByLabel('Name').fill('Not A Name');
    await page.getByRole('button', { name: 'Save the intent' }).click();
    await eventually(async () => expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true'));
    expect(await page.locator('.field.has-error .field-error').first().textContent()).toBe(
      'Must be 1 to 64 lowercase letters, digits or underscores, starting with a letter.',
    );
    await capture(page, 'dashboard-intent-error', 'Intent greeting');

    await page.getByLabel('Name').fill('greeting');
    await page.getByLabel('Response').fill('Welcome to E2E Shop, edited from the dashboard!');
    await page.getByRole('button', { name: 'Save the intent' }).click();
    await page.getByText('Saved. The next chat message uses it.').waitFor();
    await capture(page, 'dashboard-intent', 'Intent greeting');

    await nav(page, 'Intents').click();
    // Asked as the admin types (no button): the intent, and the reply the next message would get.
    await page.getByLabel('Customer message').pressSequentially('hello there', { delay: 20 });
    await page.getByText(/Detected greeting with confidence/).waitFor();
    expect(await page.locator('.try-result .bubble').textContent()).toBe(
      'Welcome to E2E Shop, edited from the dashboard!',
    );
    await capture(page, 'dashboard-intents-try', 'Intents');

    const reply = await chat('hello');
    expect(reply.body.metadata.intentDetected).toBe('greeting');
    expect(reply.body.message.content).toBe('Welcome to E2E Shop, edited from the dashboard!');
  });

  it('saves settings with a live theme preview, and shows a bad value next to its field', async () => {
    const { page } = owner;
    await nav(page, 'Settings').click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.getByLabel('Confidence threshold').fill('2');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await eventually(async () =>
      expect(await page.getByLabel('Confidence threshold').getAttribute('aria-invalid')).toBe('true'),
    );
    expect(await page.locator('.field.has-error .field-error').textContent()).toBe('Must be a number from 0 to 1.');

    await page.getByLabel('Confidence threshold').fill('0.4');
    await page.getByLabel('Greeting').fill('Hello from E2E Shop!');
    await page.getByLabel('Title', { exact: true }).fill('E2E help');
    await page.getByLabel('Position').selectOption('left');
    expect(await page.locator('.preview-head').textContent()).toBe('E2E help');
    expect(await page.locator('.preview').getAttribute('class')).toContain('preview-left');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('Saved. The next chat message uses these settings.').waitFor();
    await capture(page, 'dashboard-settings', 'Settings');

    const s = await api('GET', '/api/v1/admin/settings', { token: ownerToken });
    expect(s.body.config).toMatchObject({
      assistant: { greeting: 'Hello from E2E Shop!' },
      nlu: { confidenceThreshold: 0.4 },
      widget: { theme: { title: 'E2E help', position: 'left' } },
    });
  });

  it('invites a viewer, lists integrations, the audit log, knowledge and the profile', async () => {
    const { page } = owner;
    await nav(page, 'Members').click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByLabel('Email').fill(viewerEmail);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('rowheader', { name: viewerEmail }).waitFor();
    await capture(page, 'dashboard-members', 'Members');

    await nav(page, 'Integrations').click();
    await page.getByRole('button', { name: 'New integration' }).click();
    await page.getByLabel('Name').fill('Order system');
    await page.getByLabel('Endpoint URL').fill('http://localhost/hook');
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(async () => expect(await page.locator('.field.has-error').count()).toBeGreaterThan(0));
    await page.getByLabel('Endpoint URL').fill('https://orders.example.com/hook');
    await page.getByLabel('Signing secret').fill(`whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('rowheader', { name: 'Order system' }).waitFor();
    await capture(page, 'dashboard-integrations', 'Integrations');

    await nav(page, 'Audit').click();
    await page.getByText('Tenant created').first().waitFor();
    await page.getByLabel('Category').selectOption('ticket');
    await eventually(async () => expect(await page.getByText('Tenant created').count()).toBe(0));
    await capture(page, 'dashboard-audit', 'Audit');

    await nav(page, 'Knowledge').click();
    await capture(page, 'dashboard-knowledge', 'Knowledge');

    // The header names the user by email until they choose a display name, then by that name.
    const who = page.locator('header a.who');
    expect(await who.textContent()).toContain(ownerEmail.split('@')[0]);
    await who.click();
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await page.getByRole('textbox', { name: 'Display name' }).fill('Sam from E2E');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => expect(await who.textContent()).toContain('Sam from E2E'));
    await capture(page, 'dashboard-profile', 'Your profile');
  });

  it('shows a viewer no write controls', async () => {
    const viewer = await newDashboardPage(browser);
    try {
      const { page } = viewer;
      await signIn(page, viewerEmail);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
      expect(links).toEqual(['Overview', 'Inbox', 'Tickets', 'Intents', 'Knowledge', 'Unanswered']);

      await page.goto(`/tickets/${ticketId}`);
      await page.getByRole('region', { name: 'Details' }).waitFor();
      expect(await page.getByRole('region', { name: 'Change' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Open|Closed|In progress/ }).count()).toBe(0);
      await capture(page, 'dashboard-viewer-ticket', ticketName);

      await page.goto(`/inbox/${conversationId}`);
      await page.getByRole('list', { name: 'Messages' }).waitFor();
      expect(await page.getByLabel('Reply to the customer').count()).toBe(0);

      await page.goto('/intents');
      await page.getByRole('link', { name: 'greeting', exact: true }).click();
      await page.getByText('Your role can read intents; an admin can change them.').waitFor();
      expect(await page.getByLabel('Response').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Save the intent' }).count()).toBe(0);
      await page.goto('/intents');
      expect(await page.getByRole('link', { name: 'New intent' }).count()).toBe(0);

      await page.goto('/settings');
      await capture(page, 'dashboard-viewer-not-allowed', 'Not available');

      // Removed from the team while signed in: the next read says so, and the app offers onboarding.
      const { subForEmail } = await import('../../local/idp.ts');
      expect(
        (await api('DELETE', `/api/v1/admin/members/${subForEmail(viewerEmail)}`, { token: ownerToken })).status,
      ).toBe(204);
      await nav(page, 'Tickets').click();
      await page.getByRole('heading', { level: 1, name: 'Set up your team' }).waitFor();
    } finally {
      await viewer.context.close();
    }
  });

  it('rotates the widget key (owner) and shows the new snippet once', async () => {
    const { page } = owner;
    await nav(page, 'Settings').click();
    await page.getByRole('button', { name: 'Rotate the widget key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the widget key?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the rotate dialog');
    // A modal covers the viewport only: the viewport is the picture.
    await screenshot(page, 'dashboard-rotate-dialog', false);
    await dialog.getByRole('button', { name: 'Rotate the key' }).click();
    await page.getByText('The new key, shown only now.', { exact: false }).waitFor();
    const fresh = (await page.locator('code.key').textContent()) ?? '';
    expect(fresh).toMatch(/^wk_/);
    expect(fresh).not.toBe(widgetKey);
    expect((await api('POST', '/api/v1/chat/message', { widgetKey: fresh, body: { message: 'hello' } })).status).toBe(
      200,
    );
    widgetKey = fresh;
  });

  it('renews an expired session with the refresh token, without the sign-in page', async () => {
    const { page } = owner;
    const stored = () =>
      page.evaluate<{
        key: string;
        user: { access_token: string; refresh_token: string; expires_at: number };
      }>(`(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('oidc.user'));
      return { key, user: JSON.parse(localStorage.getItem(key)) };
    })()`);
    const before = await stored();
    expect(before.user.refresh_token).toBeTruthy();
    // Expire the stored access token, then open the app again.
    await page.evaluate(
      `localStorage.setItem(${JSON.stringify(before.key)}, JSON.stringify({ ...${JSON.stringify(before.user)}, expires_at: Math.floor(Date.now() / 1000) - 5 }))`,
    );
    const grants: string[] = [];
    const pages: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/local-idp/token'))
        grants.push(new URLSearchParams(r.postData() ?? '').get('grant_type') ?? '');
      if (r.isNavigationRequest()) pages.push(new URL(r.url()).pathname);
    });
    await page.goto('/tickets');
    await page.getByRole('heading', { level: 1, name: 'Tickets' }).waitFor();
    expect(grants).toEqual(['refresh_token']);
    expect(pages).toEqual(['/tickets']);
    const after = await stored();
    expect(after.user.access_token).not.toBe(before.user.access_token);
    expect(after.user.expires_at).toBeGreaterThan(Date.now() / 1000 + 600);
  });

  it('signs out through the issuer and stays signed out', async () => {
    const { page } = owner;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('oidc.user')))).toEqual([]);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
  });
});
