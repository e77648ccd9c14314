import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { routes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { admin, chat, request, send, type TestTenant } from '../client.ts';
import { eventually } from '../../support/eventually.ts';

// Helpers that generate the security matrices from the route table, so a new route is covered (or noticed).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The handler file of a route exists (admin routes are being written while these tests are). */
export const handlerExists = (handler: string) => existsSync(join(ROOT, 'functions', `${handler}.ts`));
export const routeExists = (method: string, path: string) => {
  const r = routes.find((x) => x.method === method && x.path === path);
  if (!r) throw new Error(`no route ${method} ${path} in the route table`);
  return handlerExists(r.handler);
};

const skipped = new Set<string>();
/** Prints once which routes a test skipped because their handler file does not exist yet. */
export function noteMissing(what: string, route: Pick<Route, 'method' | 'path' | 'handler'>) {
  const line = `[security] ${what}: skipping ${route.method} ${route.path} (functions/${route.handler}.ts does not exist yet)`;
  if (!skipped.has(line)) {
    skipped.add(line);
    console.warn(line);
  }
}

export const hasIdParam = (r: Route) => /\{id\}/.test(r.path);
/** The resource kind of a `{id}` route: the path segment before `{id}`. */
export const kindOf = (r: Route) => /\/([a-z-]+)\/\{id\}/.exec(r.path)?.[1] ?? 'unknown';
export const concrete = (r: Route, id: string) => r.path.replace('{id}', encodeURIComponent(id));

export const jwtRoutes = routes.filter((r) => r.auth === 'jwt');
export const widgetRoutes = routes.filter((r) => r.auth === 'widget');

/** Resource kinds these tests know how to create, read back and address with a valid request. */
export type Kind =
  | 'conversations'
  | 'tickets'
  | 'intents'
  | 'integrations'
  | 'members'
  | 'articles'
  | 'examples'
  | 'saved-replies'
  | 'export';
export const KINDS: readonly Kind[] = [
  'conversations',
  'tickets',
  'intents',
  'integrations',
  'members',
  'articles',
  'examples',
  'saved-replies',
  'export',
];

export const intentBody = (name = `sec_${randomUUID().slice(0, 8).replace(/-/g, '')}`) => ({
  name,
  trainingPhrases: ['where can I see my refund voucher', 'refund voucher status please'],
  response: 'Your voucher is on its way.',
});
export const articleBody = () => ({
  title: `Refund vouchers ${randomUUID().slice(0, 8)}`,
  body: 'Your **refund voucher** arrives by email within a day.',
  url: `https://help.example.com/${randomUUID()}`,
});
export const savedReplyBody = () => ({
  shortcut: `sec-${randomUUID().slice(0, 8)}`,
  title: 'Refund on its way',
  body: 'Hi {{visitor.name}}, your refund for #{{ticket.number}} is on its way.',
});
export const INTEGRATION_SECRET = () => `whsec_${randomUUID().replace(/-/g, '')}`;
export const integrationBody = (secret = INTEGRATION_SECRET()) => ({
  type: 'webhook',
  name: 'Order hook',
  config: { url: 'https://hooks.example.com/support' },
  credentials: { secret },
});

/** A valid body for a route that takes one, so that a 404 can only come from the id. */
export function validBody(r: Route): unknown {
  const k = kindOf(r);
  if (r.method === 'PATCH' && k === 'tickets') return { status: 'in_progress' };
  if (r.method === 'PATCH' && k === 'members') return { role: 'viewer' };
  if (r.method === 'PUT' && k === 'intents') return intentBody();
  if (r.method === 'PUT' && k === 'integrations') return integrationBody();
  if (r.method === 'PUT' && k === 'articles') return articleBody();
  if (r.method === 'PUT' && k === 'saved-replies') return savedReplyBody();
  if (r.method === 'PATCH' && k === 'conversations') return { labels: ['from another tenant'] };
  if (r.method === 'POST' && r.path.endsWith('/conversations/{id}/messages'))
    return { content: 'hello from another tenant' };
  if (r.method === 'POST' && r.path.endsWith('/conversations/{id}/rating')) return { score: 1 };
  if (r.method === 'POST' && r.path.endsWith('/conversations/{id}/contact')) return { email: 'someone@example.com' };
  if (r.method === 'GET' || r.method === 'DELETE') return undefined;
  // Actions on an integration (test, redeliver) take no body.
  if (r.method === 'POST' && k === 'integrations') return undefined;
  throw new Error(`no valid body known for ${r.method} ${r.path}: teach test/integration/security/routes.ts`);
}

export interface Created {
  kind: Kind;
  id: string;
  conversationId?: string;
}

/** What must exist to create a resource of this kind through the API. */
export const creatorHandler: Record<Kind, string> = {
  conversations: 'chat/send-message',
  tickets: 'chat/escalate',
  intents: 'admin/create-intent',
  integrations: 'admin/create-integration',
  members: 'admin/invite-member',
  articles: 'admin/create-article',
  examples: 'admin/create-example',
  'saved-replies': 'admin/create-saved-reply',
  export: 'admin/export-tenant',
};

/** Creates one resource of `kind` in tenant `t` through the API. */
export async function createIn(t: TestTenant, kind: Kind): Promise<Created> {
  switch (kind) {
    case 'conversations': {
      const r = await send(t, 'hello there');
      if (r.status !== 200) throw new Error(`chat: ${r.status} ${r.text}`);
      return { kind, id: r.body.conversationId };
    }
    case 'tickets': {
      const c = await createIn(t, 'conversations');
      const r = await request('POST', chat('/escalate'), {
        widgetKey: t.widgetKey,
        body: { conversationId: c.id, reason: 'security test' },
      });
      if (r.status !== 200) throw new Error(`escalate: ${r.status} ${r.text}`);
      return { kind, id: r.body.ticketId, conversationId: c.id };
    }
    case 'intents': {
      const r = await request('POST', admin('/intents'), { token: t.ownerToken, body: intentBody() });
      if (r.status !== 201) throw new Error(`create intent: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'integrations': {
      const r = await request('POST', admin('/integrations'), { token: t.ownerToken, body: integrationBody() });
      if (r.status !== 201) throw new Error(`create integration: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'articles': {
      const r = await request('POST', admin('/articles'), { token: t.ownerToken, body: articleBody() });
      if (r.status !== 201) throw new Error(`create article: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'examples': {
      const r = await request('POST', admin('/nlu/examples'), {
        token: t.ownerToken,
        body: { message: `nothing answers this ${randomUUID()}`, target: { none: true } },
      });
      if (r.status !== 201) throw new Error(`teach example: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'saved-replies': {
      const r = await request('POST', admin('/saved-replies'), { token: t.ownerToken, body: savedReplyBody() });
      if (r.status !== 201) throw new Error(`create saved reply: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'members': {
      const r = await request('POST', admin('/members'), {
        token: t.ownerToken,
        body: { email: `invitee-${randomUUID()}@example.com`, role: 'agent' },
      });
      if (r.status !== 201) throw new Error(`invite member: ${r.status} ${r.text}`);
      return { kind, id: r.body.id };
    }
    case 'export': {
      const r = await request('POST', admin('/tenant/export'), { token: t.ownerToken });
      if (r.status !== 202) throw new Error(`export tenant: ${r.status} ${r.text}`);
      // Finished before it is read back: a job still running moves between two reads.
      await eventually(async () => {
        const job = await request('GET', admin(`/tenant/export/${r.body.id}`), { token: t.ownerToken });
        if (job.body.status !== 'done' && job.body.status !== 'failed')
          throw new Error(`export not finished: ${job.text}`);
      });
      return { kind, id: r.body.id };
    }
  }
}

/**
 * Reads a resource back as its own tenant sees it, by the first read route that exists; `null`
 * when no read route exists yet. Used to prove a foreign request changed nothing.
 */
export async function readBack(t: TestTenant, c: Created): Promise<unknown> {
  return withoutIndexing(await readAsOwner(t, c));
}

/** `indexing` is the event pipeline's progress, not the resource: it may turn false between two reads. */
function withoutIndexing(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutIndexing);
  if (x === null || typeof x !== 'object') return x;
  return Object.fromEntries(
    Object.entries(x)
      .filter(([k]) => k !== 'indexing')
      .map(([k, v]) => [k, withoutIndexing(v)]),
  );
}

async function readAsOwner(t: TestTenant, c: Created): Promise<unknown> {
  const pick = (items: Array<{ id: string }>) => items.find((i) => i.id === c.id) ?? 'absent';
  switch (c.kind) {
    case 'conversations': {
      const asCustomer = (await request('GET', chat(`/conversations/${c.id}`), { widgetKey: t.widgetKey })).body;
      // The team's view too: labels are only there.
      if (!handlerExists('admin/get-conversation')) return asCustomer;
      return {
        asCustomer,
        asTeam: (await request('GET', admin(`/conversations/${c.id}`), { token: t.ownerToken })).body,
      };
    }
    case 'tickets':
      if (handlerExists('admin/get-ticket'))
        return (await request('GET', admin(`/tickets/${c.id}`), { token: t.ownerToken })).body;
      return (await request('GET', chat(`/conversations/${c.conversationId}`), { widgetKey: t.widgetKey })).body;
    case 'intents':
      if (handlerExists('admin/get-intent'))
        return (await request('GET', admin(`/intents/${c.id}`), { token: t.ownerToken })).body;
      if (handlerExists('admin/list-intents'))
        return pick((await request('GET', admin('/intents'), { token: t.ownerToken })).body.items);
      return null;
    case 'integrations':
      if (handlerExists('admin/list-integrations'))
        return pick((await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items);
      return null;
    case 'articles':
      return (await request('GET', admin(`/articles/${c.id}`), { token: t.ownerToken })).body;
    case 'examples':
      return pick((await request('GET', admin('/nlu/examples?limit=100'), { token: t.ownerToken })).body.items);
    case 'saved-replies':
      return pick((await request('GET', admin('/saved-replies'), { token: t.ownerToken })).body.items);
    case 'export': {
      // The download link is signed anew at each read: not the job's state.
      const {
        url: _url,
        urlExpiresAt: _expires,
        ...job
      } = (await request('GET', admin(`/tenant/export/${c.id}`), { token: t.ownerToken })).body;
      return job;
    }
    case 'members':
      if (handlerExists('admin/list-members'))
        return pick((await request('GET', admin('/members'), { token: t.ownerToken })).body.items);
      return null;
  }
}

/** Credentials of a tenant for a route: its owner's token or its widget key. */
export const credsFor = (t: TestTenant, r: Route) =>
  r.auth === 'widget' ? { widgetKey: t.widgetKey } : { token: t.ownerToken };
