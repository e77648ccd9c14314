import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bothWidths,
  captureWidths,
  launch,
  newDashboardPage,
  newEmail,
  signIn,
  tokenForEmail,
} from './browser.ts';

// A team's first week, from the dashboard: a newcomer finds the demo tenant from the sign-in pages
// (and one who signs in otherwise is told they are starting a new team); an agent is asked for a
// name at their first reply; the audit log and a ticket's trail read as sentences about people.

const DEMO = 'owner@demo.example';
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('sign-in for a newcomer', () => {
  it('the sign-in screens name the demo owner and fill it in; signing in with it opens the demo tenant', async () => {
    const { context, page } = await newDashboardPage(browser);
    try {
      await page.goto('/');
      await page.getByText(`The demo tenant opens with ${DEMO}; any other email starts a new team.`).waitFor();
      await captureWidths(page, 'dashboard-sign-in-demo', 'Support dashboard');

      // The issuer's page says it too, and its link fills the address in.
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(/\/local-idp\/authorize\?/);
      expect(await page.locator('p.demo').textContent()).toContain(
        `To open the demo tenant, sign in as ${DEMO}; any other email starts a new team of its own.`,
      );
      expect(await page.getByLabel('Email').inputValue()).toBe('');
      await bothWidths(page, 'dashboard-issuer-demo');
      await page.getByRole('link', { name: 'Use the demo owner' }).click();
      await page.waitForURL(/login_hint=/);
      expect(await page.getByLabel('Email').inputValue()).toBe(DEMO);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(await page.locator('.brand').textContent()).toBe('Demo Shop');
    } finally {
      await context.close();
    }
  });

  it("the dashboard's own button goes to the issuer with the demo owner filled in", async () => {
    const { context, page } = await newDashboardPage(browser);
    try {
      await page.goto('/');
      await page.getByRole('button', { name: 'Use the demo owner' }).click();
      await page.waitForURL(/\/local-idp\/authorize\?/);
      expect(await page.getByLabel('Email').inputValue()).toBe(DEMO);
    } finally {
      await context.close();
    }
  });

  it('another address is told it starts a new team, and how to reach the demo', async () => {
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, newEmail('newcomer'));
      await page.getByText('you are starting a new team of your own').waitFor();
      expect(await page.locator('.notice').textContent()).toBe(
        `Looking for the demo tenant? Sign out, then sign in as ${DEMO} (the sign-in page has a button for it).`,
      );
      await captureWidths(page, 'dashboard-onboarding-demo-hint', 'Set up your team');
      // Following the advice: sign out, then the demo owner.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Use the demo owner' }).click();
      await page.waitForURL(/\/local-idp\/authorize\?/);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(await page.locator('.brand').textContent()).toBe('Demo Shop');
    } finally {
      await context.close();
    }
  });
});

describe('people, not ids', () => {
  it('asks an agent for a name at their first reply (default read from the email), and the audit and trail name people and things', async () => {
    // A unique domain keeps the local part a person's name.
    const email = `jane.doe@${Date.now().toString(36)}${process.pid}.example.com`;
    const token = await tokenForEmail(email);
    const onboard = await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Names Shop' } });
    expect(onboard.status).toBe(201);
    const widgetKey = onboard.body.widgetKey as string;
    const me = await api('GET', '/api/v1/admin/auth/me', { token });
    expect(me.body).toMatchObject({ displayName: 'Jane Doe', displayNameChosen: false });
    const sub = me.body.user.sub as string;
    const first = await api('POST', '/api/v1/chat/message', { widgetKey, body: { message: 'my parcel never came' } });
    const conversationId = first.body.conversationId as string;
    const esc = await api('POST', '/api/v1/chat/escalate', {
      widgetKey,
      body: { conversationId, reason: 'Lost parcel' },
    });
    const ticketId = esc.body.ticketId as string;
    const hours = {
      timezone: 'Europe/Berlin',
      weekly: {
        mon: [['09:00', '17:00']],
        tue: [['09:00', '17:00']],
        wed: [['09:00', '17:00']],
        thu: [['09:00', '17:00']],
        fri: [['09:00', '17:00']],
      },
    };
    expect(
      (await api('PUT', '/api/v1/admin/settings', { token, body: { config: { businessHours: hours } } })).status,
    ).toBe(200);
    const intent = await api('POST', '/api/v1/admin/intents', {
      token,
      body: { name: 'gift_wrap', trainingPhrases: ['can you gift wrap it'], response: 'Yes.' },
    });
    expect(intent.status).toBe(201);

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.goto(`/inbox/${conversationId}`);
      const reply = page.getByLabel('Reply to the customer');
      await reply.fill('Hello, I am looking into it.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      const name = page.getByLabel('Name customers see');
      await name.waitFor();
      expect(await name.inputValue()).toBe('Jane Doe');
      await page.getByRole('group', { name: 'Your name on replies' }).waitFor();
      await bothWidths(page, 'dashboard-first-reply-name');
      await page.getByRole('button', { name: 'Save the name and send' }).click();
      const sent = page.locator('.msg-agent').filter({ hasText: 'Hello, I am looking into it.' });
      await sent.waitFor();
      expect(await sent.locator('.msg-who').textContent()).toMatch(/^Jane Doe · /);
      // Named once, the next reply goes straight out.
      await reply.fill('Found it.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      await page.locator('.msg-agent').filter({ hasText: 'Found it.' }).waitFor();
      expect(await name.count()).toBe(0);
      expect((await api('GET', '/api/v1/admin/auth/me', { token })).body).toMatchObject({
        displayName: 'Jane Doe',
        displayNameChosen: true,
      });

      // The ticket: assigned from its page; its trail names people, never ids.
      await page.goto(`/tickets/${ticketId}`);
      await page.getByRole('button', { name: 'Assign to me' }).click();
      const trail = page.getByRole('region', { name: 'Audit trail' });
      await trail.getByText(/Assignee: — → Jane Doe/).waitFor();
      const trailText = (await trail.textContent())!;
      expect(trailText).toContain('Ticket created · by the chat widget');
      expect(trailText).toContain('by Jane Doe');
      expect(await page.getByText('Jane Doe (you)').count()).toBe(1);
      for (const raw of [sub, ticketId, '{', '"', 'ticket.updated']) expect(trailText).not.toContain(raw);
      expect(trailText).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      await captureWidths(page, 'dashboard-ticket-trail-names', /^Ticket #1$/);

      // The audit log: who, what and the change in words (business hours as a timetable).
      await page.goto('/audit');
      const log = page.locator('ol.trail');
      await log.getByText('Mon–Fri 09:00–17:00 (Europe/Berlin)').waitFor();
      const logText = (await log.textContent())!;
      for (const words of [
        'Settings updated · team settings · by Jane Doe',
        'Business hours: — → Mon–Fri 09:00–17:00 (Europe/Berlin)',
        'Intent created · intent “gift_wrap” · by Jane Doe',
        'Name: — → gift_wrap',
        'Ticket updated · ticket #1 · by Jane Doe',
        'Tenant created · team settings · by Jane Doe',
      ]) {
        expect(logText).toContain(words);
      }
      for (const raw of [sub, ticketId, intent.body.id as string, '{', '"', 'ticket.updated', 'undefined'])
        expect(logText).not.toContain(raw);
      expect(logText).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      await captureWidths(page, 'dashboard-audit-names', 'Audit');
    } finally {
      await context.close();
    }
  });
});
