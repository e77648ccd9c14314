import { demoArticles } from './articles.ts';
import { demoSavedReplies } from './saved-replies.ts';

// The demo tenant's content, written through the admin API as a team would: its help centre
// (one import) and its saved replies. `npm start` runs it once, right after onboarding.

export async function seedDemoContent(apiUrl: string, ownerToken: string): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(apiUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const imported = await call('/api/v1/admin/articles/import', { articles: demoArticles });
  if (imported.status !== 200)
    throw new Error(`could not import the demo articles: ${imported.status} ${imported.text}`);
  for (const reply of demoSavedReplies) {
    const saved = await call('/api/v1/admin/saved-replies', reply);
    if (saved.status !== 201)
      throw new Error(`could not save the demo reply /${reply.shortcut}: ${saved.status} ${saved.text}`);
  }
}

const ORDERS_ACTION = 'Demo Shop orders';

/**
 * The demo's `order_status` asks the demo shop's order endpoint (`url`) through an action signed
 * with `secret`: the action is created, or given this run's secret (with --persist it exists).
 */
export async function connectDemoOrders(
  apiUrl: string,
  ownerToken: string,
  url: string,
  secret: string,
): Promise<void> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}/api/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${ownerToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`could not connect the demo orders: ${method} ${path} ${res.status} ${text}`);
    return JSON.parse(text) as { id: string; items: unknown[] };
  };
  const wanted = { type: 'action', name: ORDERS_ACTION, config: { url, timeoutMs: 3000 }, credentials: { secret } };
  const found = ((await call('GET', '/integrations')).items as Array<{ id: string; type: string; name: string }>).find(
    (i) => i.type === 'action' && i.name === ORDERS_ACTION,
  );
  const action = found
    ? await call('PUT', `/integrations/${found.id}`, wanted)
    : await call('POST', '/integrations', wanted);
  interface StoredIntent {
    id: string;
    name: string;
    description: string;
    trainingPhrases: string[];
    enabled: boolean;
    entities: Array<{ name: string }>;
    integrationId?: string;
  }
  const intent = ((await call('GET', '/intents')).items as StoredIntent[]).find((i) => i.name === 'order_status');
  if (!intent || intent.integrationId === action.id) return;
  const entities = intent.entities.some((e) => e.name === 'order_id')
    ? intent.entities
    : [...intent.entities, { name: 'order_id', type: 'order_id', required: true }];
  await call('PUT', `/intents/${intent.id}`, {
    name: intent.name,
    description: intent.description,
    trainingPhrases: intent.trainingPhrases,
    enabled: intent.enabled,
    entities,
    response: 'Order {{order_id}} is {{data.order.status}}: {{data.order.detail}}.',
    action: 'call',
    integrationId: action.id,
    failureResponse:
      "I can't check order {{order_id}} right now. If you'd like a person to look into it, just ask for one.",
  });
}
