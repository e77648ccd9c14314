import { demoArticles } from './demo-articles.ts';
import { demoSavedReplies } from './demo-saved-replies.ts';

// The demo tenant's content, written through the admin API as a team would: its help centre
// (one import) and its saved replies. `npm start` runs it once, right after onboarding.

export async function seedDemoContent(apiUrl: string, ownerToken: string): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(apiUrl + path, {
      method: 'POST', headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const imported = await call('/api/v1/admin/articles/import', { articles: demoArticles });
  if (imported.status !== 200) throw new Error(`could not import the demo articles: ${imported.status} ${imported.text}`);
  for (const reply of demoSavedReplies) {
    const saved = await call('/api/v1/admin/saved-replies', reply);
    if (saved.status !== 201) throw new Error(`could not save the demo reply /${reply.shortcut}: ${saved.status} ${saved.text}`);
  }
}
