import type Mail from 'nodemailer/lib/mailer/index.js';
import { describe, expect, inject, it } from 'vitest';
import { admin, chat, newTenant, newTicket, putConfig, request, type TestTenant } from './client.ts';
import { customer } from './live-client.ts';
import { PASS, smtp } from './mail.ts';
import { eventually, present } from '../support/eventually.ts';

// The email channel through the local runtime's real SMTP server (nodemailer as the client), read
// back through the admin API; outgoing mail read from the local catcher.

async function inboundAddress(t: TestTenant): Promise<string> {
  const r = await request('GET', admin('/settings'), { token: t.ownerToken });
  expect(r.status).toBe(200);
  return r.body.config.email.inboundAddress as string;
}

const send = (m: Mail.Options) => smtp().sendMail({ from: 'Ann Customer <ann@customer.example>', ...m });

async function conversations(t: TestTenant, query = '') {
  const r = await request('GET', admin(`/conversations${query}`), { token: t.ownerToken });
  expect(r.status).toBe(200);
  return r.body.items as Array<Record<string, any>>;
}
const detail = async (t: TestTenant, id: string) =>
  (await request('GET', admin(`/conversations/${id}`), { token: t.ownerToken })).body;

/** A new tenant whose customer at `from` wrote once, and the team's reply to it. */
async function repliedThread(name: string, from: string, subject: string) {
  const t = await newTenant(name);
  await send({ to: await inboundAddress(t), from, subject, text: 'hello' });
  const [c] = await conversations(t);
  const r = await request('POST', admin(`/conversations/${c!.id}/messages`), {
    token: t.ownerToken,
    body: { content: 'Hi there' },
  });
  return { t, c: c!, r };
}

const caught = (match: (m: Record<string, any>) => boolean) =>
  eventually(async () => {
    const r = await fetch(`${inject('mailUrl')}/messages.json`);
    return present(((await r.json()) as { items: Array<Record<string, any>> }).items.find(match), 'such mail caught');
  });

/** The message `messageId` of conversation `id`, once its delivery has a final status. */
const settled = (t: TestTenant, id: string, messageId: string) =>
  eventually(async () =>
    present(
      (await detail(t, id)).messages.find(
        (x: { id: string; delivery?: { status: string } }) => x.id === messageId && x.delivery?.status !== 'sending',
      ),
      'final delivery status',
    ),
  );

describe('email: inbound', () => {
  it('each tenant has an inbound address from its name, shown in settings and not settable', async () => {
    const t = await newTenant('Café Rosé & Co');
    const address = await inboundAddress(t);
    expect(address).toMatch(/^cafe-rose-co(-[0-9a-f]{6})?@mail\.localhost$/);
    const bad = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { email: { inboundAddress: 'x@y.example' } } },
    });
    expect(bad.status).toBe(400);
    // GET's config sent back as it is changes nothing.
    const back = await request('GET', admin('/settings'), { token: t.ownerToken });
    const same = await request('PUT', admin('/settings'), { token: t.ownerToken, body: { config: back.body.config } });
    expect(same.status).toBe(200);
    expect(same.body.config.email.inboundAddress).toBe(address);
  });

  it('a new email opens an email conversation with its subject, an unverified sender and a ticket', async () => {
    const t = await newTenant('Inbound Shop');
    const to = await inboundAddress(t);
    await send({
      to,
      subject: 'Where is my parcel?',
      text: 'Hello,\nmy order 123 has not arrived.\n\n-- \nAnn\nSent with love',
    });
    const [c] = await conversations(t);
    expect(c).toMatchObject({
      channel: 'email',
      subject: 'Where is my parcel?',
      title: 'Where is my parcel?',
      status: 'escalated',
    });
    expect(c!.visitor).toMatchObject({ email: 'ann@customer.example', name: 'Ann Customer', verified: false });
    const d = await detail(t, c!.id);
    expect(d.messages[0]).toMatchObject({ role: 'user', content: 'Hello,\nmy order 123 has not arrived.' });
    expect(d.messages[0].email).toMatchObject({ from: 'ann@customer.example', trimmed: true, automatic: false });
    expect(d.tickets).toHaveLength(1);
    // The original is kept whole, behind a short-lived link.
    const original = await fetch(d.messages[0].email.originalUrl);
    expect(original.status).toBe(200);
    expect(await original.text()).toContain('Sent with love');
    expect(await conversations(t, '?channel=widget')).toHaveLength(0);
    expect(await conversations(t, '?channel=email')).toHaveLength(1);
  });

  it('the sender is verified only when SPF, DKIM and DMARC all pass', async () => {
    const t = await newTenant('Verdict Shop');
    const to = await inboundAddress(t);
    await send({
      to,
      from: 'bob@customer.example',
      subject: 'one',
      text: 'a',
      headers: { 'X-Local-Verdicts': 'spf=pass dkim=fail dmarc=pass' },
    });
    await send({ to, from: 'cy@customer.example', subject: 'two', text: 'b', headers: PASS });
    const items = await conversations(t);
    expect(items.find((c) => c.subject === 'one')!.visitor.verified).toBe(false);
    expect(items.find((c) => c.subject === 'two')!.visitor.verified).toBe(true);
  });

  it('HTML is converted to text, never kept', async () => {
    const t = await newTenant('Html Shop');
    await send({
      to: await inboundAddress(t),
      subject: 'html',
      html: '<p>Hi <b>team</b>,</p><script>alert(1)</script><p>second line</p>',
    });
    const [c] = await conversations(t);
    const m = (await detail(t, c!.id)).messages[0];
    expect(m.content).toContain('Hi team');
    expect(m.content).toContain('second line');
    expect(m.content).not.toMatch(/<|alert/);
  });

  it('an unknown address is refused at RCPT with 550 and nothing is stored', async () => {
    const t = await newTenant('Known Shop');
    const before = await conversations(t);
    await expect(send({ to: 'nobody-here-at-all@mail.localhost', subject: 'x', text: 'y' })).rejects.toMatchObject({
      responseCode: 550,
    });
    await expect(send({ to: 'someone@other.example', subject: 'x', text: 'y' })).rejects.toMatchObject({
      responseCode: 550,
    });
    expect(await conversations(t)).toEqual(before);
  });

  it('a reply continues its conversation by In-Reply-To, and by the reply address from anyone', async () => {
    const t = await newTenant('Thread Shop');
    const to = await inboundAddress(t);
    const first = await send({
      to,
      subject: 'Refund',
      text: 'I want a refund',
      messageId: '<first-1@customer.example>',
    });
    expect(first.messageId).toBe('<first-1@customer.example>');
    await send({
      to,
      subject: 'Re: Refund',
      text: 'Any news?\n\nOn Mon, 1 Jan 2026, Team wrote:\n> we are on it',
      inReplyTo: '<first-1@customer.example>',
    });
    // Another sender naming the thread's Message-ID does not join it (References are not secret)...
    await send({
      to,
      from: 'mallory@evil.example',
      subject: 'Re: Refund',
      text: 'let me in',
      inReplyTo: '<first-1@customer.example>',
    });
    const items = await conversations(t);
    expect(items).toHaveLength(2);
    const thread = items.find((c) => c.visitor.email === 'ann@customer.example')!;
    const d = await detail(t, thread.id);
    expect(d.messages.map((m: { content: string }) => m.content)).toEqual(['I want a refund', 'Any news?']);
  });
});

describe('email: outbound', () => {
  it('an agent reply is emailed, threaded, with the reply address and the ticket number, and is delivered', async () => {
    const t = await newTenant('Reply Shop');
    const to = await inboundAddress(t);
    await send({ to, subject: 'Broken lamp', text: 'It flickers.', messageId: '<lamp-1@customer.example>' });
    const [c] = await conversations(t);
    const d = await detail(t, c!.id);
    const number = d.tickets[0].number as number;
    const r = await request('POST', admin(`/conversations/${c!.id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Sorry! **A new one** is on its way.' },
    });
    expect(r.status).toBe(201);
    expect(r.body.message.delivery).toEqual({ status: 'sending' });
    const mail = await caught(
      (m) =>
        m.subject.includes('Broken lamp') && m.envelope.to.includes('ann@customer.example') && m.raw.includes(c!.id),
    );
    expect(mail.subject).toBe(`Re: Broken lamp [#${number}]`);
    expect(mail.headers['in-reply-to']).toBe('<lamp-1@customer.example>');
    expect(mail.headers.references).toContain('<lamp-1@customer.example>');
    expect(mail.replyTo).toMatch(new RegExp(`^${to.split('@')[0]}\\+[0-9a-f]{24}@mail\\.localhost$`));
    expect(mail.from).toContain(to);
    expect(mail.html).toContain('<strong>A new one</strong>');
    expect(mail.text).toContain('**A new one**');
    // SES's Delivery event (the catcher's) moves the status on.
    await eventually(async () =>
      expect(
        (await detail(t, c!.id)).messages.find((m: { id: string }) => m.id === r.body.message.id)?.delivery?.status,
      ).toBe('delivered'),
    );

    // The customer's answer to the reply address lands in the same conversation, whatever its subject.
    await send({ to: mail.replyTo, subject: 'thanks', text: 'Great, thanks!' });
    const after = await detail(t, c!.id);
    expect(after.messages.at(-1)).toMatchObject({ role: 'user', content: 'Great, thanks!' });
    expect(await conversations(t)).toHaveLength(1);
  });

  it('a hard bounce suppresses the address: the status says bounced and later replies are refused', async () => {
    const { t, c, r } = await repliedThread('Bounce Shop', 'bounce@simulator.amazonses.com', 'Will bounce');
    expect(r.status).toBe(201);
    await eventually(async () =>
      expect(
        (await detail(t, c.id)).messages.find((m: { id: string }) => m.id === r.body.message.id)?.delivery?.status,
      ).toBe('bounced'),
    );
    const again = await request('POST', admin(`/conversations/${c.id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Hello?' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('EMAIL_SUPPRESSED');
    expect((await detail(t, c.id)).messages).toHaveLength(2);
    const s = await request('GET', admin('/settings/email/suppressions'), { token: t.ownerToken });
    expect(s.body.items).toEqual([
      { email: 'bounce@simulator.amazonses.com', reason: 'bounce', createdAt: expect.any(String) },
    ]);
  });

  it('a recipient refused when sending (550 at RCPT) is a bounce: final status, its reason, the address suppressed', async () => {
    const { t, c, r } = await repliedThread('Refused Shop', 'gone@refused.localhost', 'Refused later');
    expect(r.status).toBe(201);
    const m = await settled(t, c.id, r.body.message.id);
    expect(m.delivery.status).toBe('bounced');
    expect(m.delivery.reason).toMatch(/^the recipient was refused: 550 5\.1\.1/);
    expect(m.delivery.reason).not.toContain('gone@refused.localhost');
    const s = await request('GET', admin('/settings/email/suppressions'), { token: t.ownerToken });
    expect(s.body.items).toEqual([
      { email: 'gone@refused.localhost', reason: 'bounce', createdAt: expect.any(String) },
    ]);
    expect(
      (
        await request('POST', admin(`/conversations/${c.id}/messages`), {
          token: t.ownerToken,
          body: { content: 'Hello?' },
        })
      ).body.code,
    ).toBe('EMAIL_SUPPRESSED');
  });

  it("a message refused when sending (554 at DATA, SES's MessageRejected) is failed, and the address stays usable", async () => {
    const { t, c, r } = await repliedThread('Rejected Shop', 'ann@rejected.localhost', 'Rejected later');
    const m = await settled(t, c.id, r.body.message.id);
    expect(m.delivery).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/^the mail server refused the message: 554 5\.6\.0 Message rejected/),
    });
    expect((await request('GET', admin('/settings/email/suppressions'), { token: t.ownerToken })).body.items).toEqual(
      [],
    );
    // Not suppressed: the team may try again (and it is refused the same way, once per reply).
    expect(
      (
        await request('POST', admin(`/conversations/${c.id}/messages`), {
          token: t.ownerToken,
          body: { content: 'Again' },
        })
      ).status,
    ).toBe(201);
  });

  it("an address on the account's suppression list bounces by SES's event (OnAccountSuppressionList)", async () => {
    const { t, c, r } = await repliedThread('Listed Shop', 'suppressionlist@simulator.amazonses.com', 'Listed');
    await eventually(async () =>
      expect(
        (await detail(t, c.id)).messages.find((x: { id: string }) => x.id === r.body.message.id)?.delivery?.status,
      ).toBe('bounced'),
    );
    expect(
      (await request('GET', admin('/settings/email/suppressions'), { token: t.ownerToken })).body.items.map(
        (i: { email: string }) => i.email,
      ),
    ).toEqual(['suppressionlist@simulator.amazonses.com']);
  });

  it("a widget conversation's agent reply sends no email", async () => {
    const t = await newTenant('Widget Shop');
    await putConfig(t, {});
    const m = await request('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hello' } });
    const r = await request('POST', admin(`/conversations/${m.body.conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'hi' },
    });
    expect(r.status).toBe(201);
    expect(r.body.message.delivery).toBeUndefined();
  });
});

describe('email: a widget customer who left an address', () => {
  it('while they are away, an agent reply is also emailed, threaded, and their email answer continues the conversation', async () => {
    const t = await newTenant('Away Shop');
    const { conversationId: id } = await newTicket(t, 'refund question');
    const contact = await request('POST', chat(`/conversations/${id}/contact`), {
      widgetKey: t.widgetKey,
      body: { email: 'ana@away.example' },
    });
    expect(contact.status).toBe(200);
    expect((await detail(t, id)).replyTo).toEqual({ live: false, email: 'ana@away.example' });

    const r = await request('POST', admin(`/conversations/${id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Your refund is on its way.' },
    });
    expect(r.status).toBe(201);
    expect(r.body.message.delivery).toEqual({ status: 'sending' });
    const mail = await caught((m) => m.envelope.to.includes('ana@away.example') && m.raw.includes(id));
    const number = (await detail(t, id)).tickets[0].number as number;
    expect(mail.subject).toContain(`[#${number}]`);
    expect(mail.text).toContain('Your refund is on its way.');
    expect(mail.replyTo).toMatch(/\+[0-9a-f]{24}@mail\.localhost$/);
    await eventually(async () =>
      expect(
        (await detail(t, id)).messages.find((m: { id: string }) => m.id === r.body.message.id)?.delivery?.status,
      ).toBe('delivered'),
    );

    // Her answer by email lands in the same widget conversation; a second reply threads under it.
    await send({
      from: 'Ana <ana@away.example>',
      to: mail.replyTo,
      subject: `Re: ${mail.subject}`,
      text: 'Thanks! When will it arrive?',
      messageId: '<ana-2@away.example>',
    });
    const after = await eventually(async () => {
      const d = await detail(t, id);
      expect(d.messages.at(-1)?.content).toBe('Thanks! When will it arrive?');
      return d;
    });
    expect(after.conversation).toMatchObject({ id, channel: 'widget' });
    expect(after.messages.at(-1)).toMatchObject({ role: 'user', email: { from: 'ana@away.example' } });
    expect(await conversations(t)).toHaveLength(1);
    const second = await request('POST', admin(`/conversations/${id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Within two days.' },
    });
    const next = await caught((m) => m.envelope.to.includes('ana@away.example') && m.text.includes('Within two days.'));
    expect(second.body.message.delivery).toEqual({ status: 'sending' });
    expect(next.headers['in-reply-to']).toBe('<ana-2@away.example>');
    expect(next.replyTo).toBe(mail.replyTo);
  });

  it('while they have the chat open, the reply goes only to the chat', async () => {
    const t = await newTenant('Here Shop');
    const { conversationId: id } = await newTicket(t);
    expect(
      (
        await request('POST', chat(`/conversations/${id}/contact`), {
          widgetKey: t.widgetKey,
          body: { email: 'ben@here.example' },
        })
      ).status,
    ).toBe(200);
    const socket = await customer(t, id);
    try {
      expect((await detail(t, id)).replyTo).toEqual({ live: true, email: null });
      const r = await request('POST', admin(`/conversations/${id}/messages`), {
        token: t.ownerToken,
        body: { content: 'Here you go.' },
      });
      expect(r.status).toBe(201);
      expect(r.body.message.delivery).toBeUndefined();
      expect((await detail(t, id)).messages.at(-1).delivery).toBeUndefined();
    } finally {
      socket.ws.close();
    }
    // Once the runtime has run $disconnect, the customer is no longer live and the address is back.
    await eventually(async () =>
      expect((await detail(t, id)).replyTo).toEqual({ live: false, email: 'ben@here.example' }),
    );
    // No address left: nothing to email, whoever is connected.
    const other = await newTicket(t);
    expect((await detail(t, other.conversationId)).replyTo).toEqual({ live: false, email: null });
    const r = await request('POST', admin(`/conversations/${other.conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'Hello?' },
    });
    expect(r.body.message.delivery).toBeUndefined();
  });
});
