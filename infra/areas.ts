import type { Route } from '#shared/edge/route.ts';

// Which nested stack a route's function, role, log group, alarms and API route live in, read off
// the route declaration alone: its area (the handler's folder: chat, admin, public), and in the
// admin API, which grows, its feature (the path segment after /admin/: tickets, articles, ...).
// A new route lands in its feature's stack, or in a new stack for a new feature, with no infra
// edit. A route never moves as others are added: moving would replace its function, and API
// Gateway refuses a second route with the same key while the old one still exists.

const ADMIN_AREA = 'admin';

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** `admin/patch-ticket` at `/api/v1/admin/tickets/{id}` -> `AdminTickets`; `chat/send-message` -> `Chat`. */
export function routeStackOf(route: Pick<Route, 'handler' | 'path'>): string {
  const area = route.handler.split('/')[0]!;
  if (area !== ADMIN_AREA) return pascal(area);
  const segments = route.path.split('/').filter(Boolean);
  const feature = segments[segments.indexOf(ADMIN_AREA) + 1];
  if (!feature || feature.startsWith('{'))
    throw new Error(`admin route ${route.path} names no feature after /${ADMIN_AREA}/`);
  return pascal(`${area}-${feature}`);
}

/** The routes grouped by their stack, in declaration order. */
export function routeStacks(routes: readonly Route[]): Map<string, Route[]> {
  const groups = new Map<string, Route[]>();
  for (const route of routes) {
    const name = routeStackOf(route);
    groups.set(name, [...(groups.get(name) ?? []), route]);
  }
  return groups;
}
