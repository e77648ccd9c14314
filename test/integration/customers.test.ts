import { describe, expect, it } from 'vitest';
import { admin, chat, expectProblem, memberToken, newTenant, request, send, type TestTenant } from './client.ts';
import { hmac } from './mail.ts';

// Knowing the customer: verified identity, ticket numbers, business hours and the offline contact.

async function secretOf(t: TestTenant): Promise<string> {
  const r = await request('POST', admin('/settings/identity-secret/rotate'), { token: t.ownerToken });
  expect(r.status).toBe(201);
  return r.body.secret as string;
}
const say = (t: TestTenant, message: string, visitor?: Record<string, unknown>, conversationId?: string) =>
  request('POST', chat('/message'), {
    widgetKey: t.widgetKey,
    body: { message, ...(visitor ? { visitor } : {}), ...(conversationId ? { conversationId } : {}) },
  });
const putConfig = (t: TestTenant, config: Record<string, unknown>) =>
  request('PUT', admin('/settings'), { token: t.ownerToken, body: { config } });
const adminConversation = async (t: TestTenant, id: string) =>
  (await request('GET', admin(`/conversations/${id}`), { token: t.ownerToken })).body.conversation;
const own = (t: TestTenant, userId: string, userHash: string) =>
  request('GET', chat(`/conversations?userId=${encodeURIComponent(userId)}&userHash=${userHash}`), {
    widgetKey: t.widgetKey,
  });

describe('identity secret', () => {
  it('is shown once, masked in GET /settings, audited without the secret, and admin-only', async () => {
    const t = await newTenant();
    const secret = await secretOf(t);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const s = await request('GET', admin('/settings'), { token: t.ownerToken });
    expect(s.body.config.identity.secret).toBe(`****${secret.slice(-4)}`);
    expect(s.text).not.toContain(secret);
    const audit = await request('GET', admin('/audit?category=settings'), { token: t.ownerToken });
    expect(audit.body.items[0]).toMatchObject({ action: 'identity_secret.rotated', category: 'settings' });
    expect(audit.text).not.toContain(secret);
    const agent = await memberToken(t, 'agent');
    expectProblem(
      await request('POST', admin('/settings/identity-secret/rotate'), { token: agent.token }),
      403,
      'FORBIDDEN',
    );
    // The settings screen may send back what GET showed; a secret of its own is refused.
    expect(
      (await putConfig(t, { ...s.body.config, identity: { ...s.body.config.identity, required: false } })).status,
    ).toBe(200);
    expectProblem(await putConfig(t, { identity: { secret: 'mine' } }), 400, 'VALIDATION_ERROR');
  });
});

describe('verified visitors', () => {
  it("verifies the HMAC: right, wrong, another tenant's secret, missing, not hex", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const secret = await secretOf(t);
    const otherSecret = await secretOf(other);
    const right = await say(t, 'hello', {
      userId: 'u-42',
      name: 'Ada Lovelace',
      email: 'Ada@Example.com',
      userHash: hmac(secret, 'u-42'),
      emailHash: hmac(secret, 'ada@example.com'),
    });
    expect(right.status).toBe(200);
    expect(await adminConversation(t, right.body.conversationId)).toMatchObject({
      title: 'Ada Lovelace',
      visitor: { userId: 'u-42', name: 'Ada Lovelace', email: 'ada@example.com', verified: true, emailVerified: true },
    });
    // The id's signature does not cover the address: without its own signature it stays unverified.
    const unsignedEmail = await say(t, 'hello', {
      userId: 'u-44',
      email: 'ada@example.com',
      userHash: hmac(secret, 'u-44'),
    });
    expect((await adminConversation(t, unsignedEmail.body.conversationId)).visitor).toMatchObject({
      verified: true,
      emailVerified: false,
    });
    expectProblem(
      await say(t, 'hello', {
        userId: 'u-44',
        email: 'eve@example.com',
        userHash: hmac(secret, 'u-44'),
        emailHash: hmac(secret, 'ada@example.com'),
      }),
      401,
      'UNAUTHORIZED',
    );
    expectProblem(
      await say(t, 'hello', { userId: 'u-44', email: 'ada@example.com', emailHash: hmac(secret, 'ada@example.com') }),
      401,
      'UNAUTHORIZED',
    );
    const noAddress = await say(t, 'hello', {
      userId: 'u-44',
      userHash: hmac(secret, 'u-44'),
      emailHash: hmac(secret, 'ada@example.com'),
    });
    expectProblem(noAddress, 400, 'VALIDATION_ERROR');
    expect(noAddress.body.errors[0].path).toBe('visitor.emailHash');
    expectProblem(await say(t, 'hello', { userId: 'u-42', userHash: hmac(secret, 'u-43') }), 401, 'UNAUTHORIZED');
    expectProblem(await say(t, 'hello', { userId: 'u-42', userHash: hmac(otherSecret, 'u-42') }), 401, 'UNAUTHORIZED');
    expectProblem(await say(t, 'hello', { userId: 'u-42', userHash: 'abcd' }), 401, 'UNAUTHORIZED');
    const notHex = await say(t, 'hello', { userId: 'u-42', userHash: 'z'.repeat(64) });
    expectProblem(notHex, 400, 'VALIDATION_ERROR');
    expect(notHex.body.errors[0].path).toBe('visitor.userHash');
    expectProblem(await say(t, 'hello', { userId: 'u-42', email: 'not-an-email' }), 400, 'VALIDATION_ERROR');
    // Missing hash: kept, but unverified, and listed nowhere.
    const unverified = await say(t, 'hello', { userId: 'u-42', name: 'Mallory' });
    expect(unverified.status).toBe(200);
    expect(await adminConversation(t, unverified.body.conversationId)).toMatchObject({
      title: 'Mallory',
      visitor: { userId: 'u-42', name: 'Mallory', verified: false },
    });
    const mine = await own(t, 'u-42', hmac(secret, 'u-42'));
    expect(mine.body.items.map((c: { id: string }) => c.id)).toEqual([right.body.conversationId]);
    // A tenant without a secret verifies nothing.
    const none = await newTenant();
    expectProblem(await say(none, 'hello', { userId: 'u-42', userHash: hmac(secret, 'u-42') }), 401, 'UNAUTHORIZED');
  });

  it('identity.required refuses messages without a valid hash', async () => {
    const t = await newTenant();
    const secret = await secretOf(t);
    expect((await putConfig(t, { identity: { required: true } })).status).toBe(200);
    expectProblem(await say(t, 'hello'), 401, 'UNAUTHORIZED');
    expectProblem(await say(t, 'hello', { userId: 'u-1', name: 'No Hash' }), 401, 'UNAUTHORIZED');
    expectProblem(await say(t, 'hello', { userId: 'u-1', userHash: hmac('guess', 'u-1') }), 401, 'UNAUTHORIZED');
    expect((await say(t, 'hello', { userId: 'u-1', userHash: hmac(secret, 'u-1') })).status).toBe(200);
    // Nothing was written by the refused ones.
    const list = await request('GET', admin('/conversations'), { token: t.ownerToken });
    expect(list.body.items).toHaveLength(1);
    // A rotated secret stops verifying at once.
    await secretOf(t);
    expectProblem(await say(t, 'hello', { userId: 'u-1', userHash: hmac(secret, 'u-1') }), 401, 'UNAUTHORIZED');
  });

  it("lists a verified visitor's conversations on any device, newest first; never another tenant's", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const secret = await secretOf(t);
    const otherSecret = await secretOf(other);
    const v = { userId: 'customer-7', userHash: hmac(secret, 'customer-7') };
    const first = (await say(t, 'hello from my laptop', v)).body.conversationId;
    const second = (await say(t, 'hello from my phone', { ...v, email: 'c7@example.com' })).body.conversationId;
    await say(t, 'hello, someone else', { userId: 'customer-8', userHash: hmac(secret, 'customer-8') });
    // The same user id in another tenant is another person.
    await say(other, 'hello', { userId: 'customer-7', userHash: hmac(otherSecret, 'customer-7') });
    const r = await own(t, v.userId, v.userHash);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        { id: second, status: 'active', title: 'c7@example.com', updatedAt: expect.any(String), channel: 'widget' },
        {
          id: first,
          status: 'active',
          title: expect.stringMatching(/^Visitor \d+$/),
          updatedAt: expect.any(String),
          channel: 'widget',
        },
      ],
    });
    expectProblem(await own(t, v.userId, hmac(otherSecret, 'customer-7')), 401, 'UNAUTHORIZED');
    expectProblem(await own(t, v.userId, 'nothex'), 400, 'VALIDATION_ERROR');
    expect((await own(other, 'customer-7', hmac(otherSecret, 'customer-7'))).body.items).toHaveLength(1);
    // Another verified user cannot continue the conversation; the owner can, from any device.
    expectProblem(
      await say(t, 'let me in', { userId: 'customer-8', userHash: hmac(secret, 'customer-8') }, first),
      404,
      'NOT_FOUND',
    );
    expect((await say(t, 'me again', v, first)).status).toBe(200);
    // The dashboard's customer panel.
    const panel = await request('GET', admin('/conversations?userId=customer-7'), { token: t.ownerToken });
    expect(panel.body.items.map((c: { id: string }) => c.id)).toEqual([second, first]);
  });

  it('an unverified visitor never merges: a verified sign-in takes the conversation over, unverified facts never replace verified ones', async () => {
    const t = await newTenant();
    const secret = await secretOf(t);
    const anon = (await say(t, 'hello', { userId: 'victim', name: 'Faker' })).body.conversationId;
    expect((await own(t, 'victim', hmac(secret, 'victim'))).body.items).toEqual([]);
    const v = { userId: 'victim', name: 'Real Name', userHash: hmac(secret, 'victim') };
    await say(t, 'signed in now', v, anon);
    await say(t, 'and now?', { userId: 'victim', name: 'Faker again' }, anon);
    expect((await adminConversation(t, anon)).visitor).toMatchObject({ name: 'Real Name', verified: true });
    expect((await own(t, 'victim', v.userHash)).body.items.map((c: { id: string }) => c.id)).toEqual([anon]);
  });
});

describe('ticket numbers', () => {
  it('30 parallel escalations in different conversations take 30 distinct numbers, 1 to 30', async () => {
    const t = await newTenant();
    const convs: string[] = [];
    for (let i = 0; i < 30; i += 5) {
      convs.push(
        ...(await Promise.all(
          [0, 1, 2, 3, 4].map(async (j) => (await send(t, `hello ${i + j}`)).body.conversationId as string),
        )),
      );
    }
    const r = await Promise.all(
      convs.map((conversationId) =>
        request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId, reason: 'help' } }),
      ),
    );
    expect(
      r.map((x) => x.status),
      r.find((x) => x.status !== 200)?.text,
    ).toEqual(convs.map(() => 200));
    const numbers = r.map((x) => x.body.ticketNumber as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (const x of r) {
      expect(x.body.message).toContain(`#${x.body.ticketNumber}`);
      expect(x.body.message).not.toContain(x.body.ticketId);
    }
    // Creation order: a higher number is never older.
    const list = await request('GET', admin('/tickets?limit=100'), { token: t.ownerToken });
    const byTime = [...list.body.items].reverse().map((x: { number: number }) => x.number);
    expect(byTime).toEqual([...byTime].sort((a, b) => a - b));
    const found = await request('GET', admin('/tickets?number=17'), { token: t.ownerToken });
    expect(found.body.items).toHaveLength(1);
    expect(found.body.items[0]).toMatchObject({
      number: 17,
      visitor: null,
      conversationTitle: expect.stringMatching(/^Visitor/),
    });
    expect((await request('GET', admin('/tickets?number=31'), { token: t.ownerToken })).body.items).toEqual([]);
    expectProblem(await request('GET', admin('/tickets?number=0'), { token: t.ownerToken }), 400, 'VALIDATION_ERROR');
    expectProblem(await request('GET', admin('/tickets?number=abc'), { token: t.ownerToken }), 400, 'VALIDATION_ERROR');
  });

  it("numbers per tenant; a resolved ticket's conversation escalated again takes the next number", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const c = (await send(t, 'hello')).body.conversationId;
    const first = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: c, reason: 'a' },
    });
    await request('PATCH', admin(`/tickets/${first.body.ticketId}`), {
      token: t.ownerToken,
      body: { status: 'resolved' },
    });
    const second = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: c, reason: 'b' },
    });
    expect([first.body.ticketNumber, second.body.ticketNumber]).toEqual([1, 2]);
    const o = (await send(other, 'hello')).body.conversationId;
    expect(
      (
        await request('POST', chat('/escalate'), {
          widgetKey: other.widgetKey,
          body: { conversationId: o, reason: 'x' },
        })
      ).body.ticketNumber,
    ).toBe(1);
    const detail = await request('GET', admin(`/tickets/${second.body.ticketId}`), { token: t.ownerToken });
    expect(detail.body.ticket.number).toBe(2);
  });
});

describe('business hours and the offline contact', () => {
  const closedNow = () => {
    // A week whose only hours are one minute, 12 hours from now: closed at any time the test runs.
    const at = new Date(Date.now() + 12 * 3600_000);
    const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][at.getUTCDay()]!;
    const hhmm = at.toISOString().slice(11, 16);
    const end = new Date(at.getTime() + 60_000).toISOString().slice(11, 16);
    return { timezone: 'UTC', weekly: { [day]: [[hhmm, end]] } };
  };

  it('GET /chat/widget says online, nextOpenAt and replyTime', async () => {
    const t = await newTenant();
    const open = await request('GET', chat('/widget'), { widgetKey: t.widgetKey });
    expect(open.body).toMatchObject({ online: true, nextOpenAt: null, replyTime: null });
    expect(
      (await putConfig(t, { businessHours: closedNow(), widget: { replyTime: 'usually within an hour' } })).status,
    ).toBe(200);
    const closed = await request('GET', chat('/widget'), { widgetKey: t.widgetKey });
    expect(closed.body).toMatchObject({ online: false, replyTime: 'usually within an hour' });
    const next = Date.parse(closed.body.nextOpenAt);
    expect(next - Date.now()).toBeGreaterThan(11 * 3600_000);
    expect(next - Date.now()).toBeLessThan(13 * 3600_000);
  });

  it('refuses bad business hours with a clear 400 and writes nothing', async () => {
    const t = await newTenant();
    const before = await request('GET', admin('/settings'), { token: t.ownerToken });
    const bad = async (businessHours: unknown, path: string) => {
      const r = await putConfig(t, { businessHours, assistant: { greeting: 'changed' } });
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors[0].path).toBe(path);
    };
    await bad({ timezone: 'Europe/Atlantis', weekly: {} }, 'config.businessHours.timezone');
    await bad(
      {
        timezone: 'UTC',
        weekly: {
          mon: [
            ['09:00', '12:00'],
            ['11:00', '14:00'],
          ],
        },
      },
      'config.businessHours.weekly',
    );
    await bad({ timezone: 'UTC', weekly: { mon: [['9am', '12:00']] } }, 'config.businessHours.weekly.mon.0.0');
    await bad({ timezone: 'UTC', weekly: {}, holidays: ['25/12/2026'] }, 'config.businessHours.holidays.0');
    expectProblem(await putConfig(t, { widget: { replyTime: 'x'.repeat(81) } }), 400, 'VALIDATION_ERROR');
    expect((await request('GET', admin('/settings'), { token: t.ownerToken })).body).toEqual(before.body);
  });

  it("an escalation while closed opens the ticket, says the team is away (when it is back is the client's to say) and takes an email as unverified", async () => {
    const t = await newTenant();
    await putConfig(t, { businessHours: closedNow() });
    const c = (await send(t, 'hello')).body.conversationId;
    const e = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: c, reason: 'at night' },
    });
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({ ticketNumber: 1, online: false, emailRequested: true });
    expect(e.body.message).toContain('#1. The team is away right now; ');
    // No time in the tenant's zone: the widget says when, in the visitor's (from nextOpenAt).
    expect(e.body.message).not.toMatch(/\d:\d\d/);
    expect(Date.parse(e.body.nextOpenAt)).toBeGreaterThan(Date.now());
    expect(e.body.message).toContain('leave your email address');
    expectProblem(
      await request('POST', chat(`/conversations/${c}/contact`), { widgetKey: t.widgetKey, body: { email: 'nope' } }),
      400,
      'VALIDATION_ERROR',
    );
    const contact = await request('POST', chat(`/conversations/${c}/contact`), {
      widgetKey: t.widgetKey,
      body: { email: 'Night@Example.com' },
    });
    expect(contact.status).toBe(200);
    expect(contact.body.visitor).toEqual({
      userId: null,
      name: null,
      email: 'night@example.com',
      verified: false,
      emailVerified: false,
    });
    expect(await adminConversation(t, c)).toMatchObject({
      title: 'night@example.com',
      visitor: { email: 'night@example.com', verified: false },
    });
    const again = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: c, reason: 'again' },
    });
    expect(again.body).toMatchObject({ ticketNumber: 1, emailRequested: false });
    expect(again.body.message).toContain('night@example.com');
    expectProblem(
      await request('POST', chat('/conversations/0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b/contact'), {
        widgetKey: t.widgetKey,
        body: { email: 'a@b.co' },
      }),
      404,
      'NOT_FOUND',
    );
  });
});
