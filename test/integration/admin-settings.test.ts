import { describe, expect, it } from 'vitest';
import { admin, expectProblem, memberToken, newTenant, request, send } from './client.ts';

const get = (token: string) => request('GET', admin('/settings'), { token });
const put = (token: string, body: unknown) => request('PUT', admin('/settings'), { token, body });
/** A config as GET and PUT show it: with the tenant's inbound email address beside what was set. */
const shown = (config: Record<string, unknown>) => ({
  ...config,
  email: { inboundAddress: expect.stringMatching(/@mail\.localhost$/) },
});

describe('settings', () => {
  it('reads the tenant, config and widget key preview', async () => {
    const t = await newTenant('Settings Shop');
    const r = await get(t.ownerToken);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tenant: { id: t.tenantId, name: 'Settings Shop' },
      config: shown({}),
      widgetKey: { preview: `****${t.widgetKey.slice(-4)}`, createdAt: expect.stringMatching(/Z$/) },
      // No sending address of its own: replies come from the inbound address.
      emailSender: null,
    });
    expect(r.text).not.toContain(t.widgetKey);
  });

  it('merges config as a JSON Merge Patch, renames, and the chat uses the new settings', async () => {
    const t = await newTenant();
    let r = await put(t.ownerToken, {
      name: '  New Name ',
      config: {
        assistant: { greeting: 'Hi!', fallbackMessage: 'Nope.' },
        custom: { a: 1, b: [1, 2] },
        nlu: { confidenceThreshold: 0.99 },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.tenant.name).toBe('New Name');
    r = await put(t.ownerToken, { config: { assistant: { greeting: null }, custom: { b: [3] }, extra: 'kept' } });
    expect(r.body.config).toEqual(
      shown({
        assistant: { fallbackMessage: 'Nope.' },
        custom: { a: 1, b: [3] },
        nlu: { confidenceThreshold: 0.99 },
        extra: 'kept',
      }),
    );
    expect((await get(t.ownerToken)).body.config).toEqual(r.body.config);
    // An out-of-scope message gets the configured fallback text at once.
    const m = await send(t, 'what is the capital of France');
    expect(m.body.metadata.intentDetected).toBe('fallback');
    expect(m.body.message.content).toBe('Nope.');
    r = await put(t.ownerToken, { config: { custom: null, nlu: null } });
    expect(r.body.config).toEqual(shown({ assistant: { fallbackMessage: 'Nope.' }, extra: 'kept' }));
    r = await put(t.ownerToken, {
      config: {
        widget: { allowedOrigins: ['https://shop.example', 'http://localhost:5173'], theme: { color: '#000' } },
      },
    });
    expect(r.status).toBe(200);
    expect((await put(t.ownerToken, { config: { widget: { theme: 'dark' } } })).body.config.widget).toEqual({
      allowedOrigins: ['https://shop.example', 'http://localhost:5173'],
      theme: 'dark',
    });

    const audit = await request('GET', admin('/audit?category=settings'), { token: t.ownerToken });
    if (audit.status === 200) {
      const names = audit.body.items.flatMap((e: { changes: object }) => Object.keys(e.changes));
      expect(names).toEqual(expect.arrayContaining(['name', 'config.assistant', 'config.custom']));
    }
  });

  it('a save that changes nothing writes nothing and logs nothing, whatever the order of its keys', async () => {
    const t = await newTenant();
    const entries = async () =>
      (await request('GET', admin('/audit?category=settings'), { token: t.ownerToken })).body.items as Array<{
        changes: object;
      }>;
    const hours = {
      timezone: 'Europe/Lisbon',
      weekly: { mon: [], tue: [['09:00', '18:00']], wed: [['09:00', '18:00']], sun: [] },
      holidays: ['2026-12-25'],
    };
    expect(
      (await put(t.ownerToken, { config: { businessHours: hours, widget: { replyTime: 'within a day' } } })).status,
    ).toBe(200);
    const before = await entries();
    expect(before).toHaveLength(1);
    // The same hours again, as the dashboard's form sends them (its own key order, an absent reply time as null).
    const again = {
      holidays: ['2026-12-25'],
      weekly: { sun: [], wed: [['09:00', '18:00']], tue: [['09:00', '18:00']], mon: [] },
      timezone: 'Europe/Lisbon',
    };
    const r = await put(t.ownerToken, {
      name: 'Test Shop',
      config: { businessHours: again, widget: { replyTime: 'within a day' }, assistant: { greeting: null } },
    });
    expect(r.status).toBe(200);
    expect(r.body.config.businessHours).toEqual(hours);
    expect(await entries()).toHaveLength(1);
    // A real change is still logged, with only what changed.
    expect(
      (await put(t.ownerToken, { config: { businessHours: { ...again, timezone: 'Europe/Madrid' } } })).status,
    ).toBe(200);
    const after = await entries();
    expect(after).toHaveLength(2);
    expect(Object.keys(after[0]!.changes)).toEqual(['config.businessHours']);
  });

  it('refuses bad values of known keys, naming the field, and over-sized config; nothing changes', async () => {
    const t = await newTenant();
    await put(t.ownerToken, { config: { keep: 1 } });
    const cases: Array<[unknown, string]> = [
      [{ config: { nlu: { confidenceThreshold: 1.5 } } }, 'config.nlu.confidenceThreshold'],
      [{ config: { nlu: { confidenceThreshold: '0.5' } } }, 'config.nlu.confidenceThreshold'],
      [{ config: { escalation: { defaultPriority: 'asap' } } }, 'config.escalation.defaultPriority'],
      [{ config: { assistant: { greeting: 5 } } }, 'config.assistant.greeting'],
      [{ config: { assistant: { fallbackMessage: [] } } }, 'config.assistant.fallbackMessage'],
      [{ config: { widget: { allowedOrigins: ['https://shop.example/path'] } } }, 'config.widget.allowedOrigins.0'],
      [{ config: { widget: { allowedOrigins: 'https://shop.example' } } }, 'config.widget.allowedOrigins'],
      [{ config: { widget: { theme: 5 } } }, 'config.widget.theme'],
      [{ config: { nlu: 'high' } }, 'config.nlu'],
      [{ config: { big: 'x'.repeat(16 * 1024) } }, 'config'],
      [{ config: [] }, 'config'],
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(101) }, 'name'],
      [{ color: 'red' }, 'color'],
    ];
    for (const [body, path] of cases) {
      const r = await put(t.ownerToken, body);
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    expectProblem(await put(t.ownerToken, {}), 400, 'VALIDATION_ERROR');
    expect((await get(t.ownerToken)).body.config).toEqual(shown({ keep: 1 }));
    // Just under the limit is fine.
    const pad = 16 * 1024 - JSON.stringify({ keep: 1, big: '' }).length;
    expect((await put(t.ownerToken, { config: { big: 'x'.repeat(pad) } })).status).toBe(200);
  });

  it('concurrent patches of different keys all land', async () => {
    const t = await newTenant();
    const rs = await Promise.all(Array.from({ length: 5 }, (_, i) => put(t.ownerToken, { config: { [`k${i}`]: i } })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await get(t.ownerToken)).body.config).toEqual(shown({ k0: 0, k1: 1, k2: 2, k3: 3, k4: 4 }));
  });

  it('rotates the widget key (owner only): the old key stops, the new one works', async () => {
    const t = await newTenant();
    const adm = await memberToken(t, 'admin');
    expectProblem(await request('POST', admin('/settings/widget-key'), { token: adm.token }), 403, 'FORBIDDEN');
    const r = await request('POST', admin('/settings/widget-key'), { token: t.ownerToken });
    expect(r.status).toBe(201);
    expect(r.body.widgetKey).toMatch(/^wk_/);
    expect(r.body.widgetKey).not.toBe(t.widgetKey);
    expect((await get(t.ownerToken)).body.widgetKey.preview).toBe(`****${r.body.widgetKey.slice(-4)}`);
    // The old key was never used, so no container cache holds it: it is refused at once.
    expectProblem(await send(t, 'hello'), 401, 'UNAUTHORIZED');
    expect((await send({ widgetKey: r.body.widgetKey }, 'hello')).status).toBe(200);
    const audit = await request('GET', admin('/audit?category=settings'), { token: t.ownerToken });
    if (audit.status === 200) {
      expect(audit.text).not.toContain(r.body.widgetKey);
      expect(audit.text).not.toContain(r.body.widgetKey.slice(-4));
      expect(audit.body.items.map((e: { action: string }) => e.action)).toContain('widget_key.rotated');
    }
  });

  it('enforces roles: settings need admin', async () => {
    const t = await newTenant();
    for (const role of ['viewer', 'agent'] as const) {
      const m = await memberToken(t, role);
      expectProblem(await get(m.token), 403, 'FORBIDDEN');
      expectProblem(await put(m.token, { name: 'x' }), 403, 'FORBIDDEN');
      expectProblem(await request('POST', admin('/settings/widget-key'), { token: m.token }), 403, 'FORBIDDEN');
    }
    const adm = await memberToken(t, 'admin');
    expect((await put(adm.token, { name: 'By Admin' })).body.tenant.name).toBe('By Admin');
    const other = await newTenant('Other');
    expect((await get(other.ownerToken)).body.tenant.name).toBe('Other');
  });
});
