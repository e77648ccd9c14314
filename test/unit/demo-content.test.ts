import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoArticles } from '../../local/demo/articles.ts';
import { demoSavedReplies } from '../../local/demo/saved-replies.ts';
import { type DemoHost, startDemoHost } from '../../local/web.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { markdownToBlocks } from '#shared/nlu/index.ts';
import { currenciesIn } from '../fixtures/helpdesks.ts';

// The demo tenant's content (its help centre, the intents every tenant starts with, the shop page)
// tells one story: one currency, and articles whose plain text reads as sentences.

describe('demo content', () => {
  let host: DemoHost;
  beforeAll(async () => {
    host = await startDemoHost({ apiUrl: 'http://127.0.0.1:9', widgetKey: `wk_${'a'.repeat(24)}` });
  });
  afterAll(() => host.stop());

  it('speaks of dollars only: help articles, starter replies, saved replies and the shop page', async () => {
    const page = await (await fetch(`${host.url}/`)).text();
    const texts = [
      ...demoArticles.flatMap((a) => [a.title, a.body, ...a.questions]),
      ...starterIntents.map((i) => i.response),
      ...demoSavedReplies.map((r) => r.body),
      page,
    ];
    const found = new Set(texts.flatMap(currenciesIn));
    expect([...found]).toEqual(['$']);
  });

  it.each(demoArticles)(
    '"$title": 1 to 3 questions, and every block of its plain text is whole sentences',
    ({ body, questions }) => {
      expect(questions.length).toBeGreaterThanOrEqual(1);
      expect(questions.length).toBeLessThanOrEqual(3);
      // A table row or a bare list item becomes a block like "Express, 1 to 2 days, $9.90": no sentence.
      for (const block of markdownToBlocks(body)) expect(block).toMatch(/^["A-Z].*[.!?]$/);
    },
  );
});
