// The route table: the single source of truth for every HTTP route. The CDK stack makes one
// function and one API route per row; the local runtime serves the same rows; the HTTP kit reads
// a request's row (by its route key) for the auth kind and minimum role. It imports no handler code.

export const ROLES = ['viewer', 'agent', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** widget: X-Widget-Key; jwt: the HTTP API JWT authorizer; none: public. */
export type AuthKind = 'widget' | 'jwt' | 'none';

/**
 * What the function may do to the table: `read` grants only reads, `write` reads and writes.
 * `kms` marks the functions that encrypt or decrypt integration credentials.
 */
export interface Route {
  method: Method;
  /** API Gateway path template, `{name}` for a path parameter. */
  path: string;
  /** Handler module, relative to `functions/`, without extension; it exports `handler`. */
  handler: string;
  auth: AuthKind;
  /** Minimum role for jwt routes; `null` where any valid token will do (onboarding, /auth/me). */
  role: Role | null;
  table: 'read' | 'write' | 'none';
  kms?: boolean;
}

const CHAT = '/api/v1/chat';
const ADMIN = '/api/v1/admin';

const chat = (method: Method, path: string, handler: string, table: Route['table']): Route => ({
  method, path: CHAT + path, handler: `chat/${handler}`, auth: 'widget', role: null, table,
});
const admin = (
  method: Method, path: string, handler: string, role: Role | null, table: Route['table'], kms = false,
): Route => ({
  method, path: ADMIN + path, handler: `admin/${handler}`, auth: 'jwt', role, table, ...(kms ? { kms } : {}),
});

export const routes: readonly Route[] = [
  chat('POST', '/message', 'send-message', 'write'),
  chat('GET', '/conversations/{id}', 'get-conversation', 'read'),
  chat('POST', '/escalate', 'escalate', 'write'),

  // /auth/me writes: an invited user joins their tenant on it.
  admin('GET', '/auth/me', 'get-me', null, 'write'),
  admin('POST', '/auth/onboard', 'onboard', null, 'write'),
  admin('GET', '/stats', 'get-stats', 'viewer', 'read'),
  admin('GET', '/conversations', 'list-conversations', 'viewer', 'read'),
  admin('GET', '/conversations/{id}', 'get-conversation', 'viewer', 'read'),
  admin('GET', '/tickets', 'list-tickets', 'viewer', 'read'),
  admin('GET', '/tickets/{id}', 'get-ticket', 'viewer', 'read'),
  admin('PATCH', '/tickets/{id}', 'patch-ticket', 'agent', 'write'),
  admin('GET', '/intents', 'list-intents', 'viewer', 'read'),
  admin('GET', '/intents/{id}', 'get-intent', 'viewer', 'read'),
  admin('POST', '/intents', 'create-intent', 'admin', 'write'),
  admin('PUT', '/intents/{id}', 'update-intent', 'admin', 'write'),
  admin('DELETE', '/intents/{id}', 'delete-intent', 'admin', 'write'),
  admin('GET', '/integrations', 'list-integrations', 'admin', 'read'),
  admin('POST', '/integrations', 'create-integration', 'admin', 'write', true),
  admin('PUT', '/integrations/{id}', 'update-integration', 'admin', 'write', true),
  admin('DELETE', '/integrations/{id}', 'delete-integration', 'admin', 'write'),
  admin('GET', '/audit', 'list-audit', 'admin', 'read'),
  admin('GET', '/settings', 'get-settings', 'admin', 'read'),
  admin('PUT', '/settings', 'put-settings', 'admin', 'write'),
  admin('POST', '/settings/widget-key', 'rotate-widget-key', 'owner', 'write'),
  admin('GET', '/members', 'list-members', 'admin', 'read'),
  admin('POST', '/members', 'invite-member', 'owner', 'write'),
  admin('PATCH', '/members/{id}', 'patch-member', 'owner', 'write'),
  admin('DELETE', '/members/{id}', 'delete-member', 'owner', 'write'),

  { method: 'GET', path: '/api/v1/openapi.json', handler: 'public/openapi', auth: 'none', role: null, table: 'none' },
];

/** API Gateway's route key, e.g. `PATCH /api/v1/admin/tickets/{id}`. */
export const routeKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method} ${r.path}`;

const byKey = new Map(routes.map((r) => [routeKey(r), r]));
export const findRoute = (key: string): Route | undefined => byKey.get(key);

/** Request body limits in bytes (CONTRACT section 6); the limit itself is accepted. */
export const BODY_LIMIT = { widget: 16 * 1024, jwt: 256 * 1024, none: 0 } as const satisfies Record<AuthKind, number>;

export const roleAtLeast = (have: Role, need: Role): boolean => ROLES.indexOf(have) >= ROLES.indexOf(need);
