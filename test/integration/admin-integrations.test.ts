import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, request } from './client.ts';

// Standard Webhooks secrets: whsec_ + base64 of 24 to 64 bytes.
const secretOf = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString('base64')}`;
const SECRET = secretOf(0x5a);
const masked = (s: string) => `****${s.slice(-4)}`;
const HOOK = {
  type: 'webhook',
  name: 'Ops hook',
  config: { url: 'https://hooks.example.com/support' },
  credentials: { secret: SECRET },
};
const post = (token: string, body: unknown) => request('POST', admin('/integrations'), { token, body });

describe('integrations', () => {
  it('creates, lists, replaces and deletes, never returning a credential whole', async () => {
    const t = await newTenant();
    const bodies: string[] = [];
    const c = await post(t.ownerToken, HOOK);
    bodies.push(c.text);
    expect(c.status).toBe(201);
    expect(c.body).toEqual({
      id: expect.stringMatching(/^int_/),
      type: 'webhook',
      name: 'Ops hook',
      status: 'active',
      config: { url: 'https://hooks.example.com/support' },
      credentials: { secret: masked(SECRET) },
      createdAt: expect.stringMatching(/Z$/),
    });
    const l = await request('GET', admin('/integrations'), { token: t.ownerToken });
    bodies.push(l.text);
    expect(l.body.items).toEqual([c.body]);
    const slack = await post(t.ownerToken, {
      type: 'slack',
      name: 'Slack',
      config: { channel: '#support' },
      credentials: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/xoxb1234567890abcdef', pin: '42' },
    });
    bodies.push(slack.text);
    expect(slack.body.credentials).toEqual({ webhookUrl: '****cdef', pin: '****' });

    const NEW_SECRET = secretOf(0x33);
    const p = await request('PUT', admin(`/integrations/${c.body.id}`), {
      token: t.ownerToken,
      body: { ...HOOK, name: 'Renamed', credentials: { secret: NEW_SECRET } },
    });
    bodies.push(p.text);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      id: c.body.id,
      name: 'Renamed',
      credentials: { secret: masked(NEW_SECRET) },
      createdAt: c.body.createdAt,
    });
    const audit = await request('GET', admin('/audit?category=integration'), { token: t.ownerToken });
    if (audit.status === 200) {
      bodies.push(audit.text);
      expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
        expect.arrayContaining(['integration.created', 'integration.updated']),
      );
    }
    for (const b of bodies) {
      expect(b).not.toContain(SECRET);
      expect(b).not.toContain(NEW_SECRET);
      expect(b).not.toContain('xoxb1234567890');
    }
    expect((await request('DELETE', admin(`/integrations/${c.body.id}`), { token: t.ownerToken })).status).toBe(204);
    expectProblem(
      await request('DELETE', admin(`/integrations/${c.body.id}`), { token: t.ownerToken }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await request('PUT', admin(`/integrations/${c.body.id}`), { token: t.ownerToken, body: HOOK }),
      404,
      'NOT_FOUND',
    );
    expect(
      (await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items.map(
        (i: { id: string }) => i.id,
      ),
    ).toEqual([slack.body.id]);
  });

  it('refuses unsafe webhook URLs and bad bodies with 400, writing nothing', async () => {
    const t = await newTenant();
    for (const url of [
      'http://hooks.example.com/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.0.0.5/x',
      'https://192.168.0.1/',
      'https://169.254.169.254/latest',
      'https://[::1]/',
      'https://[fe80::1]/',
      'https://[fd00::1]/',
      'https://192.0.2.1/',
      'https://[2001:db8::1]/',
      'not a url',
    ]) {
      const r = await post(t.ownerToken, { ...HOOK, config: { url } });
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors[0].path, url).toBe('config.url');
    }
    const cases: Array<[unknown, string]> = [
      [{ ...HOOK, type: 'fax' }, 'type'],
      [{ ...HOOK, name: '' }, 'name'],
      [{ ...HOOK, config: {} }, 'config.url'],
      [{ ...HOOK, credentials: { secret: 'whsec_plaintext_SECRET_value_9876' } }, 'credentials.secret'],
      [{ ...HOOK, credentials: { secret: `whsec_${Buffer.alloc(16).toString('base64')}` } }, 'credentials.secret'],
      [{ ...HOOK, credentials: { secret: 5 } }, 'credentials.secret'],
      [{ ...HOOK, extra: true }, 'extra'],
    ];
    for (const [body, path] of cases) {
      const r = await post(t.ownerToken, body);
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const ok = await post(t.ownerToken, HOOK);
    expectProblem(
      await request('PUT', admin(`/integrations/${ok.body.id}`), {
        token: t.ownerToken,
        body: { ...HOOK, config: { url: 'https://10.0.0.1/' } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('PUT', admin('/integrations/bad-id'), { token: t.ownerToken, body: HOOK }),
      404,
      'NOT_FOUND',
    );
    const items = (await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items;
    expect(items).toEqual([ok.body]);
  });

  it('needs the admin role and hides other tenants', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const id = (await post(t.ownerToken, HOOK)).body.id;
    for (const role of ['viewer', 'agent'] as const) {
      const m = await memberToken(t, role);
      expectProblem(await request('GET', admin('/integrations'), { token: m.token }), 403, 'FORBIDDEN');
      expectProblem(await post(m.token, HOOK), 403, 'FORBIDDEN');
      expectProblem(
        await request('PUT', admin(`/integrations/${id}`), { token: m.token, body: HOOK }),
        403,
        'FORBIDDEN',
      );
      expectProblem(await request('DELETE', admin(`/integrations/${id}`), { token: m.token }), 403, 'FORBIDDEN');
    }
    const adm = await memberToken(t, 'admin');
    expect((await request('GET', admin('/integrations'), { token: adm.token })).body.items).toHaveLength(1);
    expectProblem(
      await request('PUT', admin(`/integrations/${id}`), { token: other.ownerToken, body: HOOK }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request('DELETE', admin(`/integrations/${id}`), { token: other.ownerToken }), 404, 'NOT_FOUND');
    expect((await request('GET', admin('/integrations'), { token: other.ownerToken })).body.items).toEqual([]);
    expect((await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items[0].name).toBe('Ops hook');
  });
});
