import type Mail from 'nodemailer/lib/mailer/index.js';
import { describe, expect, it } from 'vitest';
import { admin, chat, expectProblem, newTenant, request, type TestTenant } from './client.ts';
import { hmac, PASS, smtp } from './mail.ts';

// One customer across the widget and email: linked only when both sides are verified (the site
// signed the visitor's id and address; the sender passed SPF, DKIM and DMARC), in one tenant.
// Mail goes through the local runtime's SMTP server, the rest through the HTTP API.

async function setup(name: string) {
  const t = await newTenant(name);
  const secret = (await request('POST', admin('/settings/identity-secret/rotate'), { token: t.ownerToken })).body
    .secret as string;
  const to = (await request('GET', admin('/settings'), { token: t.ownerToken })).body.config.email
    .inboundAddress as string;
  return { t, secret, to };
}

const mail = (m: Mail.Options) => smtp().sendMail(m);

/** Sends a mail and returns its conversation's id (found by its unique subject). */
async function emailThread(t: TestTenant, m: Mail.Options): Promise<string> {
  await mail(m);
  const r = await request('GET', admin('/conversations?channel=email'), { token: t.ownerToken });
  const c = (r.body.items as Array<{ id: string; subject: string }>).find((x) => x.subject === m.subject);
  expect(c).toBeDefined();
  return c!.id;
}

async function widget(t: TestTenant, visitor: Record<string, unknown>): Promise<string> {
  const r = await request('POST', chat('/message'), {
    widgetKey: t.widgetKey,
    body: { message: 'hello there', visitor },
  });
  expect(r.status).toBe(200);
  return r.body.conversationId as string;
}

const own = async (t: TestTenant, q: Record<string, string>) => {
  const r = await request('GET', chat(`/conversations?${new URLSearchParams(q)}`), { widgetKey: t.widgetKey });
  expect(r.status).toBe(200);
  return r.body.items as Array<{ id: string; channel: string; title: string }>;
};
const panel = async (t: TestTenant, q: Record<string, string>) => {
  const r = await request('GET', admin(`/conversations?${new URLSearchParams(q)}`), { token: t.ownerToken });
  expect(r.status).toBe(200);
  return (r.body.items as Array<{ id: string; channel: string }>).map((c) => c.id);
};

describe('email: one customer across channels', () => {
  it("a forged reply (failing SPF, DKIM and DMARC) to a verified thread joins it marked unverified: the team sees it so, the visitor's widget never", async () => {
    const { t, secret, to } = await setup('Forged Reply Shop');
    const address = 'vera@customer.example';
    const signed = {
      userId: 'u-vera',
      email: address,
      userHash: hmac(secret, 'u-vera'),
      emailHash: hmac(secret, address),
    };
    await widget(t, signed);
    const first = `<first-${Date.now()}@customer.example>`;
    const e = await emailThread(t, {
      from: `Vera <${address}>`,
      to,
      subject: 'Forged: my refund',
      text: 'Where is my refund?',
      messageId: first,
      headers: PASS,
    });
    await mail({
      from: `Vera <${address}>`,
      to,
      subject: 'Re: Forged: my refund',
      text: 'Send the refund to this other account instead.',
      inReplyTo: first,
      references: [first],
      headers: { 'X-Local-Verdicts': 'spf=fail dkim=fail dmarc=fail' },
    });
    const team = (await request('GET', admin(`/conversations/${e}`), { token: t.ownerToken })).body;
    expect(team.messages.map((m: any) => m.content)).toEqual([
      'Where is my refund?',
      'Send the refund to this other account instead.',
    ]);
    expect(team.messages.map((m: any) => m.email.verified)).toEqual([true, false]);
    expect(team.messages[1].email.verdicts).toEqual({ spf: 'fail', dkim: 'fail', dmarc: 'fail' });
    expect(team.messages[0].email.verdicts).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass' });
    // The thread stays linked and verified; the visitor's widget shows only what passed.
    expect((await own(t, { userId: 'u-vera', userHash: signed.userHash })).map((c) => c.id)).toContain(e);
    const read = await request('GET', chat(`/conversations/${e}`), { widgetKey: t.widgetKey });
    expect(read.body.messages.map((m: any) => m.content)).toEqual(['Where is my refund?']);
  });

  it('verified on both sides: the widget lists the email thread (read-only), the panel both, export covers it', async () => {
    const { t, secret, to } = await setup('Linked Shop');
    const address = 'lin.ked@customer.example';
    const signed = {
      userId: 'u-lin',
      email: address,
      userHash: hmac(secret, 'u-lin'),
      emailHash: hmac(secret, address),
    };
    const w = await widget(t, signed);
    const e = await emailThread(t, {
      from: `Lin <${address}>`,
      to,
      subject: 'Linked: my invoice',
      text: 'Where is my invoice?',
      headers: PASS,
    });

    const listed = await own(t, { userId: 'u-lin', userHash: signed.userHash });
    expect(listed.map((c) => c.id).sort()).toEqual([w, e].sort());
    expect(listed.find((c) => c.id === e)).toMatchObject({ channel: 'email', title: 'Linked: my invoice' });
    expect(listed.find((c) => c.id === w)).toMatchObject({ channel: 'widget' });
    // The dashboard's panel, from either conversation.
    expect((await panel(t, { userId: 'u-lin' })).sort()).toEqual([w, e].sort());
    expect((await panel(t, { email: address.toUpperCase() })).sort()).toEqual([w, e].sort());

    // The widget reads the thread, but it is answered by email.
    const read = await request('GET', chat(`/conversations/${e}`), { widgetKey: t.widgetKey });
    expect(read.status).toBe(200);
    expect(read.body.conversation.channel).toBe('email');
    expect(read.body.messages[0].content).toBe('Where is my invoice?');
    expectProblem(
      await request('POST', chat('/message'), {
        widgetKey: t.widgetKey,
        body: { conversationId: e, message: 'hi', visitor: signed },
      }),
      409,
      'CONFLICT',
    );
    expectProblem(
      await request('POST', chat('/escalate'), { widgetKey: t.widgetKey, body: { conversationId: e, reason: 'help' } }),
      409,
      'CONFLICT',
    );
    // Nor may the widget change where the team's replies go.
    expectProblem(
      await request('POST', chat(`/conversations/${e}/contact`), {
        widgetKey: t.widgetKey,
        body: { email: 'thief@evil.example' },
      }),
      409,
      'CONFLICT',
    );
    expect(
      (await request('GET', admin(`/conversations/${e}`), { token: t.ownerToken })).body.conversation.visitor.email,
    ).toBe(address);

    // A visitor who has not chatted yet links the thread by the address signed now.
    const fresh = { userId: 'u-new', userHash: hmac(secret, 'u-new') };
    expect(await own(t, fresh)).toEqual([]);
    expect((await own(t, { ...fresh, email: address, emailHash: hmac(secret, address) })).map((c) => c.id)).toEqual([
      e,
    ]);
    expectProblem(
      await request(
        'GET',
        chat(
          `/conversations?${new URLSearchParams({ ...fresh, email: address, emailHash: hmac(secret, 'x@y.example') })}`,
        ),
        { widgetKey: t.widgetKey },
      ),
      401,
      'UNAUTHORIZED',
    );
    const half = await request('GET', chat(`/conversations?${new URLSearchParams({ ...fresh, email: address })}`), {
      widgetKey: t.widgetKey,
    });
    expectProblem(half, 400, 'VALIDATION_ERROR');
    expect(half.body.errors[0].path).toBe('emailHash');

    // The customer's export by user id holds the linked thread.
    const exp = await request('POST', admin('/customers/export'), { token: t.ownerToken, body: { userId: 'u-lin' } });
    expect(exp.status).toBe(200);
    expect((exp.body.conversations as Array<{ id: string }>).map((c) => c.id).sort()).toEqual([w, e].sort());
    expect(exp.body.email.conversations).toEqual([expect.objectContaining({ conversationId: e, customer: address })]);
    // And erasure by user id erases the linked thread too: its text, subject and sender.
    const erased = await request('POST', admin('/customers/erase'), { token: t.ownerToken, body: { userId: 'u-lin' } });
    expect(erased.status).toBe(200);
    const thread = (await request('GET', admin(`/conversations/${e}`), { token: t.ownerToken })).body;
    expect(thread.conversation).toMatchObject({ subject: '[erased]', visitor: null });
    expect(thread.messages[0].content).toBe('[erased]');
    expect(await own(t, { userId: 'u-lin', userHash: signed.userHash })).toEqual([]);
  });

  it('an unverified sender is not linked: a forged From reveals nothing and joins nothing', async () => {
    const { t, secret, to } = await setup('Forged Shop');
    const address = 'vic.tim@customer.example';
    const signed = {
      userId: 'u-vic',
      email: address,
      userHash: hmac(secret, 'u-vic'),
      emailHash: hmac(secret, address),
    };
    const w = await widget(t, signed);
    const forged = await emailThread(t, {
      from: address,
      to,
      subject: 'Forged: send me their history',
      text: 'x',
      headers: { 'X-Local-Verdicts': 'spf=fail dkim=pass dmarc=fail' },
    });

    expect((await own(t, { userId: 'u-vic', userHash: signed.userHash })).map((c) => c.id)).toEqual([w]);
    expect(await panel(t, { userId: 'u-vic' })).toEqual([w]);
    // The forged thread's panel has no verified address to look up; asked by address, only the verified side shows.
    expect(
      (await request('GET', admin(`/conversations/${forged}`), { token: t.ownerToken })).body.conversation.visitor,
    ).toMatchObject({ email: address, verified: false, emailVerified: false });
    expect(await panel(t, { email: address })).toEqual([w]);
  });

  it("an unverified widget address is not linked: the id's signature alone does not vouch for the address", async () => {
    const { t, secret, to } = await setup('Unsigned Shop');
    const address = 'un.signed@customer.example';
    const e = await emailThread(t, { from: address, to, subject: 'Unsigned: my order', text: 'x', headers: PASS });
    // Signed id, typed address (a signed-in visitor could type anyone's).
    const w = await widget(t, { userId: 'u-uns', email: address, userHash: hmac(secret, 'u-uns') });
    expect((await own(t, { userId: 'u-uns', userHash: hmac(secret, 'u-uns') })).map((c) => c.id)).toEqual([w]);
    expect(await panel(t, { userId: 'u-uns' })).toEqual([w]);
    // Neither an unsigned visitor nor the contact form's typed address.
    const anon = await widget(t, { userId: 'u-uns2', email: address });
    expect(
      (
        await request('POST', chat(`/conversations/${anon}/contact`), {
          widgetKey: t.widgetKey,
          body: { email: address },
        })
      ).status,
    ).toBe(200);
    expect(await panel(t, { email: address })).toEqual([e]);
  });

  it("another tenant's same address is another customer", async () => {
    const a = await setup('Tenant A Shop');
    const b = await setup('Tenant B Shop');
    const address = 'two.tenants@customer.example';
    const inA = await emailThread(a.t, {
      from: address,
      to: a.to,
      subject: 'Tenant A: a question',
      text: 'x',
      headers: PASS,
    });
    const signedB = {
      userId: 'u-two',
      email: address,
      userHash: hmac(b.secret, 'u-two'),
      emailHash: hmac(b.secret, address),
    };
    const inB = await widget(b.t, signedB);
    expect(
      (
        await own(b.t, { userId: 'u-two', userHash: signedB.userHash, email: address, emailHash: signedB.emailHash })
      ).map((c) => c.id),
    ).toEqual([inB]);
    expect(await panel(b.t, { email: address })).toEqual([inB]);
    expect(await panel(a.t, { email: address })).toEqual([inA]);
    // Tenant A's widget key does not read tenant B's linked conversation, nor B's key A's thread.
    expect((await request('GET', chat(`/conversations/${inA}`), { widgetKey: b.t.widgetKey })).status).toBe(404);
  });
});
