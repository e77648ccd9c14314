import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { routes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { roundTrips } from '#shared/data/client.ts';
import { lambdaContext, v2Event, type EventInput } from '../../../local/events.ts';
import { mean, percentile } from './util.ts';

// Each route's handler invoked directly with real v2 events, sequentially, so that the
// process-wide `roundTrips` counter's delta belongs to exactly one request.

export interface Fixture {
  root: string;
  widgetKey: string;
  ownerClaims: Record<string, string>;
  conversations: string[];
  ticketId: string;
  intentId?: string;
  /** A tenant with 500 articles: its widget key, owner claims, an article and a message the articles answer. */
  kb?: { widgetKey: string; ownerClaims: Record<string, string>; articleId: string; message: string | null };
}

export interface RouteCase {
  label: string;
  route: Route;
  /** Builds the i-th request (warm-up included). */
  input: (i: number) => Omit<EventInput, 'route'>;
}

export interface RouteResult {
  label: string;
  handler: string;
  iterations: number;
  non2xx: number;
  statuses: Record<string, number>;
  roundTrips: { mean: number; max: number };
  handlerMs: { p50: number; p99: number };
  dbMs: { p50: number; p99: number };
  /** (handler − db) / db at the p50s; null where the route makes no DynamoDB call. */
  overheadP50: number | null;
}

type Handler = (
  e: ReturnType<typeof v2Event>,
  c: ReturnType<typeof lambdaContext>,
) => Promise<APIGatewayProxyStructuredResultV2>;

const find = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path);

export function routeCases(f: Fixture): RouteCase[] {
  const widget = { 'x-widget-key': f.widgetKey };
  const owner = { claims: f.ownerClaims };
  const conv = (i: number) => f.conversations[i % f.conversations.length]!;
  const cases: Array<[string, string, string, (i: number) => Omit<EventInput, 'route'>]> = [
    [
      'POST /chat/message (existing conversation)',
      'POST',
      '/api/v1/chat/message',
      (i) => ({ headers: widget, body: { conversationId: conv(i), message: 'where is my order?' } }),
    ],
    [
      'POST /chat/message (new conversation)',
      'POST',
      '/api/v1/chat/message',
      () => ({ headers: widget, body: { message: 'hello there' } }),
    ],
    [
      'GET /chat/conversations/{id}',
      'GET',
      '/api/v1/chat/conversations/{id}',
      (i) => ({ headers: widget, params: { id: conv(i) } }),
    ],
    [
      'POST /chat/escalate (ticket already open)',
      'POST',
      '/api/v1/chat/escalate',
      () => ({ headers: widget, body: { conversationId: f.conversations[0], reason: 'bench' } }),
    ],
    ['GET /admin/auth/me', 'GET', '/api/v1/admin/auth/me', () => owner],
    ['GET /admin/stats', 'GET', '/api/v1/admin/stats', () => owner],
    ['GET /admin/conversations', 'GET', '/api/v1/admin/conversations', () => owner],
    [
      'GET /admin/conversations/{id}',
      'GET',
      '/api/v1/admin/conversations/{id}',
      (i) => ({ ...owner, params: { id: conv(i) } }),
    ],
    ['GET /admin/tickets', 'GET', '/api/v1/admin/tickets', () => owner],
    ['GET /admin/tickets/{id}', 'GET', '/api/v1/admin/tickets/{id}', () => ({ ...owner, params: { id: f.ticketId } })],
    [
      'PATCH /admin/tickets/{id}',
      'PATCH',
      '/api/v1/admin/tickets/{id}',
      (i) => ({ ...owner, params: { id: f.ticketId }, body: { status: i % 2 ? 'open' : 'in_progress' } }),
    ],
    ['GET /admin/intents', 'GET', '/api/v1/admin/intents', () => owner],
    [
      'GET /admin/intents/{id}',
      'GET',
      '/api/v1/admin/intents/{id}',
      () => ({ ...owner, params: { id: f.intentId ?? '' } }),
    ],
    ['GET /admin/integrations', 'GET', '/api/v1/admin/integrations', () => owner],
    ['GET /admin/audit', 'GET', '/api/v1/admin/audit', () => owner],
    ['GET /admin/settings', 'GET', '/api/v1/admin/settings', () => owner],
    ['GET /admin/members', 'GET', '/api/v1/admin/members', () => owner],
    ['GET /openapi.json', 'GET', '/api/v1/openapi.json', () => ({})],
    ['GET /chat/widget', 'GET', '/api/v1/chat/widget', () => ({ headers: widget })],
    [
      'POST /chat/conversations/{id}/rating',
      'POST',
      '/api/v1/chat/conversations/{id}/rating',
      (i) => ({ headers: widget, params: { id: conv(i) }, body: { score: 1 + (i % 5) } }),
    ],
    [
      'POST /admin/nlu/parse',
      'POST',
      '/api/v1/admin/nlu/parse',
      () => ({ ...owner, body: { message: 'where is my order 12345?' } }),
    ],
    ['GET /admin/nlu/examples', 'GET', '/api/v1/admin/nlu/examples', () => owner],
    ['GET /admin/nlu/unanswered', 'GET', '/api/v1/admin/nlu/unanswered', () => owner],
    [
      'PATCH /admin/auth/me',
      'PATCH',
      '/api/v1/admin/auth/me',
      (i) => ({ ...owner, body: { displayName: `Owner ${i % 7}` } }),
    ],
    ['POST /admin/live/tickets', 'POST', '/api/v1/admin/live/tickets', () => owner],
    [
      'POST /admin/conversations/{id}/messages',
      'POST',
      '/api/v1/admin/conversations/{id}/messages',
      (i) => ({ ...owner, params: { id: conv(i) }, body: { content: 'A person answering' } }),
    ],
  ];
  if (f.kb) {
    const kb = f.kb;
    const kbOwner = { claims: kb.ownerClaims };
    if (kb.message) {
      cases.push([
        'POST /chat/message (answered from 500 articles)',
        'POST',
        '/api/v1/chat/message',
        () => ({ headers: { 'x-widget-key': kb.widgetKey }, body: { message: kb.message } }),
      ]);
    }
    cases.push(
      [
        'GET /chat/articles/{id}',
        'GET',
        '/api/v1/chat/articles/{id}',
        () => ({ headers: { 'x-widget-key': kb.widgetKey }, params: { id: kb.articleId } }),
      ],
      ['GET /admin/articles (500 articles)', 'GET', '/api/v1/admin/articles', () => kbOwner],
      [
        'GET /admin/articles?q= (500 articles)',
        'GET',
        '/api/v1/admin/articles',
        () => ({ ...kbOwner, query: { q: 'how do I change the default font size' } }),
      ],
      [
        'GET /admin/articles/{id}',
        'GET',
        '/api/v1/admin/articles/{id}',
        () => ({ ...kbOwner, params: { id: kb.articleId } }),
      ],
    );
  }
  return cases.flatMap(([label, method, path, input]) => {
    const route = find(method, path);
    if (!route || !existsSync(join(f.root, 'functions', `${route.handler}.ts`))) return [];
    if (path.includes('/intents/{id}') && !f.intentId) return [];
    return [{ label, route, input }];
  });
}

export async function benchRoute(root: string, c: RouteCase, warmup: number, iterations: number): Promise<RouteResult> {
  const mod = (await import(pathToFileURL(join(root, 'functions', `${c.route.handler}.ts`)).href)) as {
    handler: Handler;
  };
  const statuses: Record<string, number> = {};
  const h: number[] = [],
    d: number[] = [],
    n: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const event = v2Event({ route: c.route, ...c.input(i) });
    const context = lambdaContext(c.route);
    const rt0 = roundTrips.count,
      ms0 = roundTrips.ms;
    const t0 = performance.now();
    const res = await mod.handler(event, context);
    const t = performance.now() - t0;
    if (i < warmup) continue;
    h.push(t);
    d.push(roundTrips.ms - ms0);
    n.push(roundTrips.count - rt0);
    const s = String(res.statusCode ?? 200);
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  const non2xx = Object.entries(statuses)
    .filter(([s]) => !s.startsWith('2'))
    .reduce((a, [, v]) => a + v, 0);
  const hp50 = percentile(h, 50),
    dp50 = percentile(d, 50);
  return {
    label: c.label,
    handler: c.route.handler,
    iterations,
    non2xx,
    statuses,
    roundTrips: { mean: mean(n), max: Math.max(...n) },
    handlerMs: { p50: hp50, p99: percentile(h, 99) },
    dbMs: { p50: dp50, p99: percentile(d, 99) },
    overheadP50: mean(n) > 0 && dp50 > 0 ? (hp50 - dp50) / dp50 : null,
  };
}
