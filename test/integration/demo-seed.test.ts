import { describe, expect, it } from 'vitest';
import { seedDemoContent } from '../../local/demo/seed.ts';
import { demoSavedReplies } from '../../local/demo/saved-replies.ts';
import { admin, baseUrl, newTenant, request } from './client.ts';

// What `npm start` writes into the demo tenant, through the same routes a team uses.

describe("the demo tenant's content", () => {
  it('has its help centre and two or three saved replies, all taken by the API', async () => {
    const t = await newTenant('Demo Shop');
    await seedDemoContent(baseUrl(), t.ownerToken);
    const replies = await request('GET', admin('/saved-replies'), { token: t.ownerToken });
    expect(replies.status).toBe(200);
    expect(replies.body.items.length).toBeGreaterThanOrEqual(2);
    expect(replies.body.items.length).toBeLessThanOrEqual(3);
    expect(replies.body.items.map((r: { shortcut: string }) => r.shortcut).sort()).toEqual(
      demoSavedReplies.map((r) => r.shortcut).sort(),
    );
    const articles = await request('GET', admin('/articles'), { token: t.ownerToken });
    expect(articles.body.items.length).toBeGreaterThan(0);
  });
});
