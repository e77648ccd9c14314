import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, newDashboardPage, newTeam, screenReady, screenshot, sidewaysScroll, signIn } from './browser.ts';

// Every admin screen at a 360 px phone: nothing wider than the viewport, so the page never
// scrolls sideways (document.scrollingElement.scrollWidth is at most 360).

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const SCREENS = [
  ['/', 'Overview'],
  ['/inbox', 'Inbox'],
  ['/tickets', 'Tickets'],
  ['/intents', 'Intents'],
  ['/knowledge', 'Knowledge'],
  ['/saved-replies', 'Saved replies'],
  ['/unanswered', 'Unanswered'],
  ['/settings', 'Settings'],
  ['/members', 'Members'],
  ['/integrations', 'Integrations'],
  ['/audit', 'Audit'],
  ['/profile', 'Profile'],
] as const;

describe('the dashboard at 360 px', () => {
  it('scrolls no screen sideways', async () => {
    const { email } = await newTeam('narrow', 'Narrow Screens Bike Shop');
    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.setViewportSize({ width: 360, height: 800 });
      const wide: string[] = [];
      for (const [path, heading] of SCREENS) {
        await page.goto(path);
        await screenReady(page, heading);
        const sideways = await sidewaysScroll(page);
        if (sideways) wide.push(`${path}: ${sideways}`);
        await screenshot(page, `narrow${path === '/' ? '-overview' : path.replace(/\//g, '-')}`);
      }
      expect(wide).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
