import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admin, memberToken, newSub, newTenant, request, type Res, type TestTenant } from './client.ts';

// Random sequences of partial updates (optional, defaulted and null fields) on the settings,
// intents, articles, members and integrations, through the HTTP API: never a 5xx, and GET reads
// back what a model of docs/API.md expects. fast-check prints the seed and the shrunk sequence on failure.

const RUNS = { numRuns: 15, verbose: true } as const;

function ok(r: Res, status: number, what: string) {
  if (r.status >= 500) throw new Error(`${what} answered ${r.status}: ${r.text}`);
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.text}`);
}

/** RFC 7396, the model's own: objects merge, null deletes, anything else replaces. */
function merge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/** What the table keeps (docs/API.md, Settings): numbers 0 or 1e-130 to 2^53 - 1 in size, no empty key. */
function keepable(v: unknown): boolean {
  if (typeof v === 'number') return v === 0 || (Math.abs(v) >= 1e-130 && Math.abs(v) <= Number.MAX_SAFE_INTEGER);
  if (v === null || typeof v !== 'object') return true;
  return Object.entries(v).every(([k, x]) => (Array.isArray(v) || k !== '') && keepable(x));
}

/** Strings are kept trimmed (docs/API.md, Conventions): `widget.replyTime` is one the service reads. */
function trimmed(config: unknown): unknown {
  const widget = (config as { widget?: { replyTime?: unknown } }).widget;
  if (typeof widget?.replyTime === 'string') widget.replyTime = widget.replyTime.trim();
  return config;
}

/** A value in one spelling for that comparison: keys sorted, an empty object as none. */
const spelled = (v: unknown) =>
  JSON.stringify(v ?? null, (_k, x: unknown) => {
    if (!x || typeof x !== 'object' || Array.isArray(x)) return x;
    const entries = Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length ? Object.fromEntries(entries) : null;
  });

/** Whether any top-level key of the config reads otherwise in that spelling (the audit's `config.<key>` changes). */
const changedKeys = (from: unknown, to: unknown) => {
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].some((k) => spelled(a[k]) !== spelled(b[k]));
};

const orNull = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, fc.constant(null));
/** Any JSON a client may keep under a key of its own. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

const configPatch = fc.record(
  {
    assistant: orNull(
      fc.record(
        { greeting: orNull(fc.string({ maxLength: 40 })), fallbackMessage: orNull(fc.string({ maxLength: 40 })) },
        { requiredKeys: [] },
      ),
    ),
    nlu: orNull(
      fc.record({ confidenceThreshold: orNull(fc.double({ min: 0, max: 1, noNaN: true })) }, { requiredKeys: [] }),
    ),
    knowledge: orNull(
      fc.record(
        { enabled: orNull(fc.boolean()), threshold: orNull(fc.double({ min: 0, max: 1, noNaN: true })) },
        { requiredKeys: [] },
      ),
    ),
    escalation: orNull(
      fc.record({ defaultPriority: orNull(fc.constantFrom('low', 'medium', 'high', 'urgent')) }, { requiredKeys: [] }),
    ),
    widget: orNull(
      fc.record(
        {
          replyTime: orNull(fc.constantFrom('', '   ', ' within a day ', 'within 2 hours')),
          theme: orNull(fc.record({ color: fc.constantFrom('#123456', '#abc') })),
        },
        { requiredKeys: [] },
      ),
    ),
    custom: orNull(fc.dictionary(fc.string({ maxLength: 6 }), orNull(anyJson), { maxKeys: 3 })),
  },
  { requiredKeys: [] },
);

describe('settings: PUT /settings merges partial patches', () => {
  it('reads back the merge of every patch, name kept unless given', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: fc.constantFrom('Shop A', 'Shop B'), config: configPatch }, { requiredKeys: [] }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (puts) => {
          const t = await newTenant('Shop');
          const before = await request('GET', admin('/settings'), { token: t.ownerToken });
          ok(before, 200, 'GET settings');
          let config: unknown = before.body.config;
          let name = 'Shop';
          for (const body of puts) {
            const r = await request('PUT', admin('/settings'), { token: t.ownerToken, body });
            if (body.name === undefined && body.config === undefined) {
              ok(r, 400, 'empty PUT');
              continue;
            }
            if (!keepable(body.config)) {
              ok(r, 400, `PUT ${JSON.stringify(body)}`);
              continue;
            }
            ok(r, 200, `PUT ${JSON.stringify(body)}`);
            const next = body.config ? trimmed(merge(config, JSON.parse(JSON.stringify(body.config)))) : config;
            // A write that changes nothing writes nothing (docs/API.md, Audit): an empty object left by the merge counts as none.
            if ((body.name ?? name) !== name || changedKeys(config, next)) config = next;
            name = body.name ?? name;
            const got = await request('GET', admin('/settings'), { token: t.ownerToken });
            ok(got, 200, 'GET settings');
            expect(got.body.tenant.name).toBe(name);
            expect(got.body.config).toEqual(config);
            expect(r.body.config).toEqual(config);
          }
        },
      ),
      RUNS,
    );
  });
});

const entity = fc.constantFrom(
  { name: 'order', type: 'order_id' },
  { name: 'mail', type: 'email' },
  { name: 'code', type: 'regex', pattern: '[A-Z]{3}' },
);
const intentBody = fc.record(
  {
    name: fc.constantFrom('refunds', 'returns_policy'),
    description: fc.string({ maxLength: 30 }),
    trainingPhrases: fc.uniqueArray(fc.constantFrom('I want a refund', 'money back please', 'can I return this'), {
      minLength: 1,
      maxLength: 3,
    }),
    response: fc.constantFrom('We refund within 14 days.', 'Returns are free.'),
    entities: fc.uniqueArray(entity, { maxLength: 2, selector: (e) => e.name }),
    action: fc.constantFrom('reply', 'escalate'),
    enabled: fc.boolean(),
  },
  { requiredKeys: ['name', 'trainingPhrases', 'response'] },
);

describe('intents: PUT /intents/{id} replaces with defaults for what is left out', () => {
  it('reads back each replacement, the defaults filled in', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    await fc.assert(
      fc.asyncProperty(fc.array(intentBody, { minLength: 2, maxLength: 5 }), async ([first, ...puts]) => {
        const made = await request('POST', admin('/intents'), {
          token: t.ownerToken,
          body: { ...first!, name: `i_${newSub('x').replace(/[^a-z0-9]/g, '_')}` },
        });
        ok(made, 201, 'create intent');
        const id = made.body.id as string;
        for (const body of puts) {
          const name = `${body.name}_${id.slice(0, 8)}`;
          const r = await request('PUT', admin(`/intents/${id}`), { token: t.ownerToken, body: { ...body, name } });
          ok(r, 200, `PUT intent ${JSON.stringify(body)}`);
          const expected = {
            id,
            name,
            description: (body.description ?? '').trim(),
            trainingPhrases: body.trainingPhrases,
            response: body.response,
            entities: body.entities ?? [],
            action: body.action ?? 'reply',
            enabled: body.enabled ?? true,
          };
          const got = await request('GET', admin(`/intents/${id}`), { token: t.ownerToken });
          ok(got, 200, 'GET intent');
          expect(got.body).toMatchObject(expected);
          expect(r.body).toMatchObject(expected);
        }
        ok(await request('DELETE', admin(`/intents/${id}`), { token: t.ownerToken }), 204, 'delete intent');
      }),
      RUNS,
    );
  });
});

const articleBody = fc.record(
  {
    title: fc.constantFrom('Shipping', 'Returns'),
    body: fc.constantFrom('We ship in 2 days.', '# Returns\n\nFree within 30 days.'),
    url: orNull(fc.constantFrom('https://help.example.com/a', 'https://help.example.com/b')),
    tags: fc.uniqueArray(fc.constantFrom('shipping', 'returns', 'vip'), { maxLength: 3 }),
    questions: fc.uniqueArray(fc.constantFrom('how long is shipping', 'can I return'), { maxLength: 2 }),
    status: fc.constantFrom('draft', 'published'),
  },
  { requiredKeys: ['title', 'body'] },
);

describe('articles: PUT /articles/{id} replaces with defaults for what is left out', () => {
  it('reads back each replacement; an absent url is none', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(articleBody, { minLength: 2, maxLength: 5 }), async ([first, ...puts]) => {
        // A tenant per run: an article's url is unique within its tenant.
        const t = await newTenant();
        const made = await request('POST', admin('/articles'), { token: t.ownerToken, body: first });
        ok(made, 201, 'create article');
        const id = made.body.id as string;
        for (const body of puts) {
          const r = await request('PUT', admin(`/articles/${id}`), { token: t.ownerToken, body });
          ok(r, 200, `PUT article ${JSON.stringify(body)}`);
          const expected = {
            id,
            title: body.title,
            body: body.body,
            url: body.url ?? null,
            tags: body.tags ?? [],
            questions: body.questions ?? [],
            status: body.status ?? 'published',
          };
          const got = await request('GET', admin(`/articles/${id}`), { token: t.ownerToken });
          ok(got, 200, 'GET article');
          expect(got.body).toMatchObject(expected);
        }
      }),
      RUNS,
    );
  });
});

type Role = 'viewer' | 'agent' | 'admin' | 'owner';
const ROLES: Role[] = ['viewer', 'agent', 'admin', 'owner'];

describe('members: PATCH /members/{id} changes roles, never the last owner', () => {
  it('reads back each role; demoting the last owner is 409 and changes nothing', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ who: fc.nat(2), role: fc.constantFrom(...ROLES) }), { minLength: 1, maxLength: 8 }),
        async (changes) => {
          const t: TestTenant = await newTenant();
          const joined = await memberToken(t, 'agent');
          const invitedEmail = `${newSub('invited')}@example.com`;
          const inv = await request('POST', admin('/members'), {
            token: t.ownerToken,
            body: { email: invitedEmail, role: 'viewer' },
          });
          ok(inv, 201, 'invite');
          const ids = [t.ownerSub, joined.id, inv.body.id as string];
          const roles: Role[] = ['owner', 'agent', 'viewer'];
          // The owner's token keeps working only while they are an owner: another owner is the one who acts then.
          const acting = () => (roles[0] === 'owner' ? t.ownerToken : roles[1] === 'owner' ? joined.token : null);
          for (const c of changes) {
            const token = acting();
            if (!token) break;
            const r = await request('PATCH', admin(`/members/${encodeURIComponent(ids[c.who]!)}`), {
              token,
              body: { role: c.role },
            });
            // An invitation not yet taken up is no owner yet: the last owner is the last one who joined.
            const lastOwner =
              c.who !== 2 &&
              roles[c.who] === 'owner' &&
              c.role !== 'owner' &&
              roles.slice(0, 2).filter((x) => x === 'owner').length === 1;
            if (lastOwner) {
              ok(r, 409, 'demoting the last owner');
              continue;
            }
            ok(r, 200, `PATCH member ${c.who} to ${c.role}`);
            roles[c.who] = c.role;
            expect(r.body.role).toBe(c.role);
            const list = await request('GET', admin('/members'), { token: acting()! });
            ok(list, 200, 'GET members');
            const byId = new Map((list.body.items as Array<{ id: string; role: Role }>).map((m) => [m.id, m.role]));
            expect(ids.map((id) => byId.get(id))).toEqual(roles);
          }
        },
      ),
      RUNS,
    );
  });
});

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const OTHER_SECRET = 'whsec_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef';
const integrationBody = fc.record(
  {
    name: fc.constantFrom('Ops hook', 'Audit hook'),
    config: fc.record(
      {
        url: fc.constantFrom('https://hooks.example.com/a', 'https://hooks.example.com/b'),
        events: fc.constantFrom(['ticket.created'], ['ticket.created', 'ticket.updated']),
        extra: anyJson,
      },
      { requiredKeys: ['url'] },
    ),
    credentials: fc.constantFrom({}, { secret: SECRET }, { secret: OTHER_SECRET }),
    status: fc.constantFrom('active', 'disabled'),
  },
  { requiredKeys: ['name', 'config'] },
);
const masked = (s: string) => `****${s.slice(-4)}`;

describe('integrations: PUT /integrations/{id} keeps credentials and status when left out', () => {
  it('reads back each replacement', { timeout: 120_000 }, async () => {
    const t = await newTenant();
    await fc.assert(
      fc.asyncProperty(fc.array(integrationBody, { minLength: 1, maxLength: 5 }), async (puts) => {
        const made = await request('POST', admin('/integrations'), {
          token: t.ownerToken,
          body: {
            type: 'webhook',
            name: 'Hook',
            config: { url: 'https://hooks.example.com/x' },
            credentials: { secret: SECRET },
          },
        });
        ok(made, 201, 'create integration');
        const id = made.body.id as string;
        let secret = SECRET;
        let status = 'active';
        for (const body of puts) {
          const r = await request('PUT', admin(`/integrations/${id}`), {
            token: t.ownerToken,
            body: { type: 'webhook', ...body },
          });
          if (!keepable(body.config)) {
            ok(r, 400, `PUT integration ${JSON.stringify(body)}`);
            continue;
          }
          ok(r, 200, `PUT integration ${JSON.stringify(body)}`);
          if (body.credentials?.secret) secret = body.credentials.secret;
          status = body.status ?? status;
          const list = await request('GET', admin('/integrations'), { token: t.ownerToken });
          ok(list, 200, 'GET integrations');
          const got = (list.body.items as Array<{ id: string }>).find((i) => i.id === id);
          expect(got).toMatchObject({ name: body.name, status, credentials: { secret: masked(secret) } });
          expect((got as unknown as { config: unknown }).config).toEqual(JSON.parse(JSON.stringify(body.config)));
        }
        ok(await request('DELETE', admin(`/integrations/${id}`), { token: t.ownerToken }), 204, 'delete integration');
      }),
      RUNS,
    );
  });
});

describe('JSON kept as sent (settings config, integration config)', () => {
  it('refuses, with its path, a number or a nesting the table cannot keep (400, not 500)', async () => {
    const t = await newTenant();
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    for (const [config, path] of [
      [{ custom: { tiny: 5e-324 } }, 'config.custom.tiny'],
      [{ custom: [1, -1e200] }, 'config.custom.1'],
      [{ custom: { '': 1 } }, 'config.custom'],
      [{ deep }, 'config.deep.d.d.d.d.d.d.d.d.d.d.d.d.d.d'],
    ] as const) {
      const r = await request('PUT', admin('/settings'), { token: t.ownerToken, body: { config } });
      ok(r, 400, `PUT settings ${path}`);
      expect(r.body.errors[0].path).toBe(path);
      const hook = { type: 'webhook', name: 'Hook', config: { url: 'https://hooks.example.com/x', ...config } };
      const i = await request('POST', admin('/integrations'), { token: t.ownerToken, body: hook });
      ok(i, 400, `POST integration ${path}`);
      expect(i.body.errors[0].path).toBe(path);
    }
    const r = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { custom: { big: 2 ** 53 } } },
    });
    ok(r, 400, 'PUT settings with 2^53');
    const fine = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { custom: { small: 1e-130, big: -(2 ** 53 - 1), zero: 0 } } },
    });
    ok(fine, 200, 'PUT settings with numbers at the ends of the range');
    expect(fine.body.config.custom).toEqual({ small: 1e-130, big: -(2 ** 53 - 1), zero: 0 });
  });
});
