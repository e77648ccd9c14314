import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';
import { admin, chat, expectProblem, newTenant, request, send, type TestTenant } from './client.ts';
import {
  concrete,
  createIn,
  creatorHandler,
  credsFor,
  handlerExists,
  hasIdParam,
  kindOf,
  KINDS,
  noteMissing,
  readBack,
  validBody,
  type Created,
  type Kind,
} from './security/routes.ts';

// OWASP API1 (BOLA): tenant A's credentials with tenant B's real ids. The matrix is generated
// from the route table; a `{id}` route of a kind this file cannot create fails loudly.

let a: TestTenant;
let b: TestTenant;
const made = new Map<Kind, Created>();

beforeAll(async () => {
  [a, b] = await Promise.all([newTenant('Tenant A'), newTenant('Tenant B')]);
  for (const kind of KINDS) {
    if (!handlerExists(creatorHandler[kind])) {
      noteMissing(`creating ${kind} in tenant B`, { method: 'POST', path: kind, handler: creatorHandler[kind] });
      continue;
    }
    made.set(kind, await createIn(b, kind));
  }
  // Something for A to list too, so its lists are not trivially empty.
  await send(a, 'hello');
}, 60_000);

const idRoutes = routes.filter(hasIdParam);

describe("A's credentials with B's ids: 404 and nothing changes", () => {
  it('the route table has {id} routes and this file knows every kind', () => {
    expect(idRoutes.length).toBeGreaterThan(0);
    const unknown = idRoutes.filter((r) => !(KINDS as readonly string[]).includes(kindOf(r)));
    // A new resource kind: teach security/routes.ts to create, read and address it.
    expect(unknown.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  for (const r of idRoutes) {
    it(`${r.method} ${r.path}`, async (ctx) => {
      const kind = kindOf(r) as Kind;
      if (!(KINDS as readonly string[]).includes(kind))
        throw new Error(`unknown resource kind for ${r.method} ${r.path}`);
      if (!handlerExists(r.handler)) {
        noteMissing('tenant isolation', r);
        return ctx.skip();
      }
      const target = made.get(kind);
      if (!target) {
        noteMissing(`tenant isolation (cannot create ${kind})`, r);
        return ctx.skip();
      }
      const before = await readBack(b, target);
      const body = validBody(r);
      const res = await request(r.method, concrete(r, target.id), {
        ...credsFor(a, r),
        ...(body !== undefined ? { body } : {}),
      });
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.text).not.toContain(b.tenantId);
      const after = await readBack(b, target);
      expect(after).toEqual(before);
      if (before !== null) expect(before).not.toBe('absent');
    });
  }
});

describe("A's widget key never reaches B's conversations", () => {
  it("message, read and escalate on B's conversation are 404 and change nothing", async () => {
    const conv = made.get('conversations')!.id;
    const before = await request('GET', chat(`/conversations/${conv}`), { widgetKey: b.widgetKey });
    expectProblem(await send(a, 'hello from A', conv), 404, 'NOT_FOUND');
    expectProblem(await request('GET', chat(`/conversations/${conv}`), { widgetKey: a.widgetKey }), 404, 'NOT_FOUND');
    expectProblem(
      await request('POST', chat('/escalate'), {
        widgetKey: a.widgetKey,
        body: { conversationId: conv, reason: 'steal' },
      }),
      404,
      'NOT_FOUND',
    );
    const after = await request('GET', chat(`/conversations/${conv}`), { widgetKey: b.widgetKey });
    expect(after.body).toEqual(before.body);
    expect(after.body.conversation.status).toBe('active');
  });

  it("a ticket of B's escalated conversation is not reachable through A's widget either", async () => {
    const t = made.get('tickets')!;
    expectProblem(await send(a, 'reopen it', t.conversationId), 404, 'NOT_FOUND');
    expectProblem(
      await request('POST', chat('/escalate'), {
        widgetKey: a.widgetKey,
        body: { conversationId: t.conversationId, reason: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
  });
});

const listRoutes = routes.filter((r) => r.auth === 'jwt' && r.method === 'GET' && !hasIdParam(r));

describe("A's lists and reads never contain B's ids", () => {
  for (const r of listRoutes) {
    it(`GET ${r.path}`, async (ctx) => {
      if (!handlerExists(r.handler)) {
        noteMissing('list isolation', r);
        return ctx.skip();
      }
      const others = await PER_USER[r.path]?.();
      const res = await request('GET', r.path, { token: a.ownerToken });
      // A per-user read: A requested nothing, so another's is never answered to A.
      if (others) expectProblem(res, 404, 'NOT_FOUND');
      else expect(res.status).toBe(200);
      const foreign = [
        b.tenantId,
        ...(others ?? []),
        ...[...made.values()].flatMap((c) => [c.id, c.conversationId ?? c.id]),
      ];
      for (const id of foreign) expect(res.text).not.toContain(id);
    });
  }
});

/**
 * Reads of the caller's own request, not of the tenant: another user's request is made first
 * (ids it names returned), and A, who made none, must get 404.
 */
const PER_USER: Record<string, () => Promise<string[]>> = {
  '/api/v1/admin/tenant/deletion': async () => {
    const c = await newTenant('Tenant C Leaving');
    const r = await request('POST', admin('/tenant/deletion'), {
      token: c.ownerToken,
      body: { name: 'Tenant C Leaving' },
    });
    expect(r.status).toBe(202);
    expect((await request('GET', admin('/tenant/deletion'), { token: c.ownerToken })).body.tenantId).toBe(c.tenantId);
    return [c.tenantId];
  },
};

/** Filters a paginated list accepts, to replay a cursor under other filters. */
const LIST_FILTERS: Record<string, Record<string, string>> = {
  '/api/v1/admin/conversations': { status: 'active' },
  '/api/v1/admin/tickets': { status: 'open' },
  '/api/v1/admin/audit': { category: 'ticket' },
  '/api/v1/admin/articles': { status: 'draft' },
  '/api/v1/admin/nlu/examples': { target: 'intent' },
};
/** Bounded lists (docs/API.md, Pagination) return every item and no cursor; no cursor to replay. */
const BOUNDED = new Set([
  '/api/v1/admin/intents',
  '/api/v1/admin/integrations',
  '/api/v1/admin/members',
  '/api/v1/admin/nlu/unanswered',
  '/api/v1/admin/saved-replies',
  '/api/v1/admin/labels',
  '/api/v1/admin/settings/email/suppressions',
  '/api/v1/admin/intent-templates',
]);
const NOT_LISTS = new Set([
  '/api/v1/admin/auth/me',
  '/api/v1/admin/stats',
  '/api/v1/admin/settings',
  ...Object.keys(PER_USER),
]);

describe('cursors are bound to the tenant, the list and its filters', () => {
  it('every GET list route is classified here (a new list gets noticed)', () => {
    const unclassified = listRoutes
      .map((r) => r.path)
      .filter((p) => !LIST_FILTERS[p] && !BOUNDED.has(p) && !NOT_LISTS.has(p));
    expect(unclassified).toEqual([]);
  });

  for (const r of listRoutes.filter((x) => LIST_FILTERS[x.path])) {
    it(`GET ${r.path}: B's cursor replayed by A, with other filters, or tampered is 400 INVALID_CURSOR`, async (ctx) => {
      if (!handlerExists(r.handler)) {
        noteMissing('cursor binding', r);
        return ctx.skip();
      }
      // Enough items in B for a second page: two escalated conversations make two conversations,
      // two tickets and several audit entries.
      await createIn(b, 'tickets');
      await createIn(b, 'tickets');
      if (r.path.endsWith('/articles')) {
        await createIn(b, 'articles');
        await createIn(b, 'articles');
      }
      if (r.path.endsWith('/nlu/examples')) {
        for (const message of ['is the moon made of cheese', 'sing me a song']) {
          const taught = await request('POST', r.path, {
            token: b.ownerToken,
            body: { message, target: { none: true } },
          });
          expect([200, 201]).toContain(taught.status);
        }
      }
      const first = await request('GET', `${r.path}?limit=1`, { token: b.ownerToken });
      expect(first.status).toBe(200);
      const cursor = first.body.nextCursor as string;
      expect(typeof cursor).toBe('string');
      // B's own replay works (control).
      const second = await request('GET', `${r.path}?limit=1&cursor=${encodeURIComponent(cursor)}`, {
        token: b.ownerToken,
      });
      expect(second.status).toBe(200);
      expect(second.body.items[0].id).not.toBe(first.body.items[0].id);

      expectProblem(
        await request('GET', `${r.path}?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: a.ownerToken }),
        400,
        'INVALID_CURSOR',
      );
      const filters = new URLSearchParams({ ...LIST_FILTERS[r.path], limit: '1', cursor }).toString();
      expectProblem(await request('GET', `${r.path}?${filters}`, { token: b.ownerToken }), 400, 'INVALID_CURSOR');
      // A cursor of another list.
      for (const other of Object.keys(LIST_FILTERS).filter((p) => p !== r.path)) {
        const o = routes.find((x) => x.method === 'GET' && x.path === other)!;
        if (!handlerExists(o.handler)) continue;
        expectProblem(
          await request('GET', `${other}?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: b.ownerToken }),
          400,
          'INVALID_CURSOR',
        );
      }
      const flipped = cursor.slice(0, -2) + (cursor.at(-2) === 'A' ? 'B' : 'A') + cursor.at(-1);
      expectProblem(
        await request('GET', `${r.path}?limit=1&cursor=${encodeURIComponent(flipped)}`, { token: b.ownerToken }),
        400,
        'INVALID_CURSOR',
      );
      expectProblem(
        await request('GET', `${r.path}?cursor=${encodeURIComponent('{"pk":"x"}')}`, { token: b.ownerToken }),
        400,
        'INVALID_CURSOR',
      );
    });
  }
});

describe('admin reads of a foreign id do not reveal existence', () => {
  it('a foreign id and an unknown id answer alike', async (ctx) => {
    const r = routes.find((x) => x.method === 'GET' && x.path === '/api/v1/admin/conversations/{id}')!;
    if (!handlerExists(r.handler)) {
      noteMissing('existence oracle', r);
      return ctx.skip();
    }
    const foreign = await request('GET', admin(`/conversations/${made.get('conversations')!.id}`), {
      token: a.ownerToken,
    });
    const unknown = await request('GET', admin('/conversations/0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b'), {
      token: a.ownerToken,
    });
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body.detail).toBe(unknown.body.detail);
  });
});

describe("the handoff routes without an id stay in the caller's tenant", () => {
  it("A's /nlu/parse never ranks B's intents, and A's assignee filter finds nothing of B", async () => {
    const name = `only_in_b_${Date.now()}`;
    const created = await request('POST', admin('/intents'), {
      token: b.ownerToken,
      body: { name, trainingPhrases: ['zebra pineapple telescope', 'telescope for a zebra'], response: 'B only' },
    });
    expect(created.status).toBe(201);
    const inB = await request('POST', admin('/nlu/parse'), {
      token: b.ownerToken,
      body: { message: 'zebra pineapple telescope' },
    });
    expect(inB.body.intentRanking.map((x: { intent: string }) => x.intent)).toContain(name);
    const inA = await request('POST', admin('/nlu/parse'), {
      token: a.ownerToken,
      body: { message: 'zebra pineapple telescope' },
    });
    expect(inA.status).toBe(200);
    expect(inA.text).not.toContain(name);

    const ticket = made.get('tickets')!;
    const assigned = await request('PATCH', admin(`/tickets/${ticket.id}`), {
      token: b.ownerToken,
      body: { assigneeId: b.ownerSub },
    });
    expect(assigned.status).toBe(200);
    const listed = await request('GET', admin(`/tickets?assignee=${encodeURIComponent(b.ownerSub)}`), {
      token: a.ownerToken,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    // A cannot assign its ticket to B's member either.
    const own = await createIn(a, 'tickets');
    expectProblem(
      await request('PATCH', admin(`/tickets/${own.id}`), { token: a.ownerToken, body: { assigneeId: b.ownerSub } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it("GET /chat/widget answers with the key's own tenant only", async () => {
    const wa = await request('GET', chat('/widget'), { widgetKey: a.widgetKey });
    const wb = await request('GET', chat('/widget'), { widgetKey: b.widgetKey });
    expect(wa.body.name).toBe('Tenant A');
    expect(wb.body.name).toBe('Tenant B');
    expect(wa.text).not.toContain(b.tenantId);
  });
});
