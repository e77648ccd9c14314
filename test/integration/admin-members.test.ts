import { describe, expect, it } from 'vitest';
import { displayNameOf } from '#shared/domain/tenants/me.ts';
import { admin, expectProblem, memberToken, newSub, newTenant, request, tokenFor } from './client.ts';

const members = (token: string) => request('GET', admin('/members'), { token });

describe('members', () => {
  it('lists the owner, invites, and the invited user joins on /auth/me with that role', async () => {
    const t = await newTenant();
    const list0 = await members(t.ownerToken);
    expect(list0.status).toBe(200);
    expect(list0.body.items).toEqual([
      {
        id: t.ownerSub,
        userId: t.ownerSub,
        email: t.ownerEmail,
        role: 'owner',
        status: 'active',
        createdAt: expect.any(String),
        displayName: displayNameOf(null, { email: t.ownerEmail }),
      },
    ]);
    const sub = newSub('inv');
    const email = `${sub}@Example.com`;
    const inv = await request('POST', admin('/members'), {
      token: t.ownerToken,
      body: { email: `  ${email} `, role: 'agent' },
    });
    expect(inv.status).toBe(201);
    expect(inv.body).toEqual({
      id: expect.any(String),
      userId: null,
      email: email.toLowerCase(),
      role: 'agent',
      status: 'invited',
      createdAt: expect.stringMatching(/Z$/),
      displayName: displayNameOf(null, { email: email.toLowerCase() }),
    });
    expect((await members(t.ownerToken)).body.items).toHaveLength(2);

    const token = await tokenFor(sub, email.toLowerCase());
    const me = await request('GET', admin('/auth/me'), { token });
    expect(me.body).toMatchObject({ tenant: { id: t.tenantId }, role: 'agent' });
    const items = (await members(t.ownerToken)).body.items;
    expect(items).toContainEqual(expect.objectContaining({ id: sub, userId: sub, role: 'agent', status: 'active' }));
    expect(items.some((i: { status: string }) => i.status === 'invited')).toBe(false);
    // Joining again changes nothing.
    expect((await request('GET', admin('/auth/me'), { token })).body.role).toBe('agent');

    const audit = await request('GET', admin('/audit?category=member'), { token: t.ownerToken });
    if (audit.status === 200) {
      expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
        expect.arrayContaining(['member.invited', 'member.joined']),
      );
    }
  });

  it('refuses an email already a member or invited (409) and bad bodies (400)', async () => {
    const t = await newTenant();
    expectProblem(
      await request('POST', admin('/members'), {
        token: t.ownerToken,
        body: { email: t.ownerEmail.toUpperCase(), role: 'viewer' },
      }),
      409,
      'CONFLICT',
    );
    const email = `${newSub('dup')}@example.com`;
    expect(
      (await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'viewer' } })).status,
    ).toBe(201);
    expectProblem(
      await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'admin' } }),
      409,
      'CONFLICT',
    );
    const concurrent = `${newSub('conc')}@example.com`;
    const rs = await Promise.all(
      Array.from({ length: 5 }, () =>
        request('POST', admin('/members'), { token: t.ownerToken, body: { email: concurrent, role: 'viewer' } }),
      ),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(4);

    const bad = await request('POST', admin('/members'), {
      token: t.ownerToken,
      body: { email: 'not-an-email', role: 'boss' },
    });
    expectProblem(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['email', 'role']);
    expectProblem(
      await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'viewer', x: 1 } }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('PATCH', admin(`/members/${t.ownerSub}`), { token: t.ownerToken, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('PATCH', admin('/members/nobody'), { token: t.ownerToken, body: { role: 'admin' } }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request('DELETE', admin('/members/nobody'), { token: t.ownerToken }), 404, 'NOT_FOUND');
  });

  it('enforces roles: list needs admin, writes need owner', async () => {
    const t = await newTenant();
    const viewer = await memberToken(t, 'viewer');
    const agent = await memberToken(t, 'agent');
    const adm = await memberToken(t, 'admin');
    expectProblem(await members(viewer.token), 403, 'FORBIDDEN');
    expectProblem(await members(agent.token), 403, 'FORBIDDEN');
    expect((await members(adm.token)).status).toBe(200);
    for (const who of [viewer, agent, adm]) {
      expectProblem(
        await request('POST', admin('/members'), {
          token: who.token,
          body: { email: `${newSub()}@example.com`, role: 'viewer' },
        }),
        403,
        'FORBIDDEN',
      );
      expectProblem(
        await request('PATCH', admin(`/members/${viewer.id}`), { token: who.token, body: { role: 'agent' } }),
        403,
        'FORBIDDEN',
      );
      expectProblem(await request('DELETE', admin(`/members/${viewer.id}`), { token: who.token }), 403, 'FORBIDDEN');
    }
    const outsider = await tokenFor(newSub('outsider'));
    expectProblem(await members(outsider), 403, 'NOT_ONBOARDED');
  });

  it('changes a role (the new role applies at once) and removes a member, who then reaches no tenant', async () => {
    const t = await newTenant();
    const v = await memberToken(t, 'viewer');
    expectProblem(await members(v.token), 403, 'FORBIDDEN');
    const p = await request('PATCH', admin(`/members/${v.id}`), { token: t.ownerToken, body: { role: 'admin' } });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ id: v.id, role: 'admin', status: 'active' });
    expect((await members(v.token)).status).toBe(200);
    expect((await request('GET', admin('/auth/me'), { token: v.token })).body.role).toBe('admin');

    expect((await request('DELETE', admin(`/members/${v.id}`), { token: t.ownerToken })).status).toBe(204);
    expectProblem(await members(v.token), 403, 'NOT_ONBOARDED');
    expect((await request('GET', admin('/auth/me'), { token: v.token })).body).toMatchObject({
      tenant: null,
      role: null,
    });
    expect((await members(t.ownerToken)).body.items.map((i: { id: string }) => i.id)).toEqual([t.ownerSub]);
  });

  it('revokes an invitation so that the user no longer joins', async () => {
    const t = await newTenant();
    const sub = newSub('revoked');
    const email = `${sub}@example.com`;
    const inv = await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'admin' } });
    const p = await request('PATCH', admin(`/members/${inv.body.id}`), {
      token: t.ownerToken,
      body: { role: 'viewer' },
    });
    expect(p.body).toMatchObject({ id: inv.body.id, role: 'viewer', status: 'invited', userId: null });
    expect((await request('DELETE', admin(`/members/${inv.body.id}`), { token: t.ownerToken })).status).toBe(204);
    const me = await request('GET', admin('/auth/me'), { token: await tokenFor(sub, email) });
    expect(me.body).toMatchObject({ tenant: null, role: null });
    // The email may be invited again once revoked.
    expect(
      (await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'viewer' } })).status,
    ).toBe(201);
  });

  it('keeps the last owner: no demotion or removal, even when two owners demote each other at once', async () => {
    const t = await newTenant();
    expectProblem(
      await request('PATCH', admin(`/members/${t.ownerSub}`), { token: t.ownerToken, body: { role: 'admin' } }),
      409,
      'CONFLICT',
    );
    expectProblem(await request('DELETE', admin(`/members/${t.ownerSub}`), { token: t.ownerToken }), 409, 'CONFLICT');
    const o2 = await memberToken(t, 'owner');
    const [a, b] = await Promise.all([
      request('PATCH', admin(`/members/${o2.id}`), { token: t.ownerToken, body: { role: 'admin' } }),
      request('PATCH', admin(`/members/${t.ownerSub}`), { token: o2.token, body: { role: 'admin' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const owners = (await members(a.status === 200 ? t.ownerToken : o2.token)).body.items.filter(
      (i: { role: string }) => i.role === 'owner',
    );
    expect(owners).toHaveLength(1);
    // With two owners again, one may leave.
    const survivor = a.status === 200 ? t.ownerToken : o2.token;
    const o3 = await memberToken({ ...t, ownerToken: survivor }, 'owner');
    expect((await request('DELETE', admin(`/members/${o3.id}`), { token: survivor })).status).toBe(204);
  });

  it("never touches another tenant's members", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const bm = await memberToken(b, 'viewer');
    expectProblem(
      await request('PATCH', admin(`/members/${bm.id}`), { token: a.ownerToken, body: { role: 'owner' } }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request('DELETE', admin(`/members/${b.ownerSub}`), { token: a.ownerToken }), 404, 'NOT_FOUND');
    expect((await request('GET', admin('/auth/me'), { token: bm.token })).body).toMatchObject({
      tenant: { id: b.tenantId },
      role: 'viewer',
    });
    expect((await members(b.ownerToken)).body.items).toHaveLength(2);
  });
});
