import type Mail from 'nodemailer/lib/mailer/index.js';
import { describe, expect, inject, it } from 'vitest';
import { demoArticles } from '../../local/demo/articles.ts';
import { admin, newTenant, putConfig, request, type TestTenant } from './client.ts';
import { smtp } from './mail.ts';
import { eventually } from '../support/eventually.ts';

// The email channel's limits and refusals, its attachments and its automatic answers, over SMTP.

const send = (m: Mail.Options) => smtp().sendMail({ from: 'Ann Customer <ann@customer.example>', ...m });
const address = async (t: TestTenant) =>
  (await request('GET', admin('/settings'), { token: t.ownerToken })).body.config.email.inboundAddress as string;
const list = async (t: TestTenant) =>
  (await request('GET', admin('/conversations'), { token: t.ownerToken })).body.items as Array<Record<string, any>>;
const detail = async (t: TestTenant, id: string) =>
  (await request('GET', admin(`/conversations/${id}`), { token: t.ownerToken })).body;
const tickets = async (t: TestTenant) =>
  (await request('GET', admin('/tickets'), { token: t.ownerToken })).body.items as unknown[];

const caughtFor = (to: string, n = 1, about = '') =>
  eventually(async () => {
    const items = (
      (await (await fetch(`${inject('mailUrl')}/messages.json`)).json()) as {
        items: Array<Record<string, any>>;
      }
    ).items.filter((m) => m.envelope.to.includes(to) && m.raw.includes(about));
    expect(items.length, `mails to ${to}`).toBeGreaterThanOrEqual(n);
    return items;
  });

describe('email: bad input and abuse', () => {
  it('malformed MIME (no From) is refused with 550 and stores nothing', async () => {
    const t = await newTenant('Malformed Shop');
    const to = await address(t);
    await expect(
      send({ envelope: { from: 'x@customer.example', to }, raw: 'this is not a message\r\n\r\nat all' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await expect(
      send({ envelope: { from: 'x@customer.example', to }, raw: 'From: nobody\r\nSubject: hi\r\n\r\nbody' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(await list(t)).toEqual([]);
  });

  it('a 30 MB message is refused by the SMTP size limit (552) and stores nothing', async () => {
    const t = await newTenant('Big Shop');
    await expect(
      send({
        to: await address(t),
        subject: 'big',
        text: 'x',
        attachments: [{ filename: 'big.bin', content: Buffer.alloc(30 * 1024 * 1024, 7) }],
      }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(await list(t)).toEqual([]);
  });

  it('a 5.7 MB HTML-only mail (a 200,000-row table) is refused with 552 within seconds, not held; a 25,000-row one is read as text', async () => {
    const t = await newTenant('Html Flood Shop');
    const to = await address(t);
    const rows = (n: number) =>
      `<table>${Array.from({ length: n }, (_, i) => `<tr><td>${i}</td><td>item ${i}</td></tr>`).join('')}</table>`;
    const started = Date.now();
    const e = (await send({ to, subject: 'table', html: rows(200_000) }).catch((err: unknown) => err)) as {
      responseCode: number;
      response: string;
    };
    expect(e.responseCode).toBe(552);
    expect(e.response).toContain('HTML');
    // Generous for a loaded machine: the converter used to hold the answer past a minute.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await list(t)).toEqual([]);
    await send({ to, subject: 'smaller table', html: rows(25_000) });
    const [c] = await list(t);
    const text = (await detail(t, c!.id)).messages[0].content as string;
    expect(text.startsWith('0 | item 0\n1 | item 1\n')).toBe(true);
  }, 60_000);

  it('a mail to two tenants reaches each as its own conversation; past 50 recipients the rest are refused at RCPT (452)', async () => {
    const a = await newTenant('Shared Mail A');
    const b = await newTenant('Shared Mail B');
    const [toA, toB] = [await address(a), await address(b)];
    await send({ to: [toA, toB], subject: 'to both', text: 'Hello both of you' });
    for (const t of [a, b]) {
      const [c] = await list(t);
      expect(c).toMatchObject({ channel: 'email', subject: 'to both' });
      expect((await detail(t, c!.id)).messages[0].content).toBe('Hello both of you');
    }
    const many = Array.from({ length: 51 }, (_, i) => toA.replace('@', `+extra${i}@`));
    const info = await send({ to: many, subject: 'to many', text: 'x' });
    expect(info.accepted).toHaveLength(50);
    expect(info.rejected).toEqual([many[50]]);
    expect((info.rejectedErrors?.[0] as { responseCode?: number } | undefined)?.responseCode).toBe(452);
  });

  it('200 attachments are refused (552), none is stored', async () => {
    const t = await newTenant('Many Files Shop');
    const attachments = Array.from({ length: 200 }, (_, i) => ({ filename: `f${i}.txt`, content: `file ${i}` }));
    const e = (await send({ to: await address(t), subject: 'files', text: 'x', attachments }).catch(
      (err: unknown) => err,
    )) as { responseCode: number; response: string };
    expect(e.responseCode).toBe(552);
    expect(e.response).toContain('at most 20 attachments');
    expect(await list(t)).toEqual([]);
  });

  it('CR/LF smuggled into a name or subject stays text: no header is injected into the reply', async () => {
    const t = await newTenant('Injection Shop');
    const evil = `=?UTF-8?B?${Buffer.from('Hello\r\nBcc: victim@evil.example\r\nX-Injected: 1').toString('base64')}?=`;
    await send({
      envelope: { from: 'ann@customer.example', to: await address(t) },
      raw: `From: =?UTF-8?B?${Buffer.from('Ann\r\nBcc: victim2@evil.example').toString('base64')}?= <ann@customer.example>\r\nTo: ${await address(t)}\r\nSubject: ${evil}\r\nMessage-ID: <inj-${Date.now()}@customer.example>\r\n\r\nhello\r\n`,
    });
    const [c] = await list(t);
    expect(c!.subject).toBe('Hello Bcc: victim@evil.example X-Injected: 1');
    expect(c!.visitor.name).toBe('Ann Bcc: victim2@evil.example');
    const r = await request('POST', admin(`/conversations/${c!.id}/messages`), {
      token: t.ownerToken,
      body: { content: 'Hi' },
    });
    expect(r.status).toBe(201);
    const [mail] = await caughtFor('ann@customer.example', 1, c!.id);
    expect(mail!.envelope.to).toEqual(['ann@customer.example']);
    expect(mail!.headers.bcc).toBeUndefined();
    expect(mail!.headers['x-injected']).toBeUndefined();
  });

  it("a From forged as another tenant's inbound address is refused in both tenants", async () => {
    const a = await newTenant('Victim Shop');
    const b = await newTenant('Target Shop');
    await expect(
      send({ from: await address(a), to: await address(b), subject: 'urgent', text: 'wire the money' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(await list(a)).toEqual([]);
    expect(await list(b)).toEqual([]);
  });

  it("a mail loop is refused: our own marker, or the team's own sending address", async () => {
    const t = await newTenant('Loop Shop');
    await putConfig(t, { email: { fromAddress: 'help@loop-shop.example' } });
    const to = await address(t);
    await expect(send({ to, subject: 'Re: x', text: 'x', headers: { 'X-Support-Loop': '1' } })).rejects.toMatchObject({
      responseCode: 554,
    });
    await expect(send({ from: 'help@loop-shop.example', to, subject: 'x', text: 'x' })).rejects.toMatchObject({
      responseCode: 554,
    });
    expect(await list(t)).toEqual([]);
  });

  it("an inbound flood stops at the tenant's hourly cap with a temporary 451; the same message twice is kept once", async () => {
    const t = await newTenant('Flood Shop');
    await putConfig(t, { email: { inboundPerHour: 2 } });
    const to = await address(t);
    await send({ to, subject: 'one', text: 'x', messageId: `<dup-${Date.now()}@customer.example>` });
    await send({ to, subject: 'two', text: 'x' });
    const e = (await send({ to, subject: 'three', text: 'x' }).catch((err: unknown) => err)) as {
      responseCode: number;
    };
    expect(e.responseCode).toBe(451);
    expect((await list(t)).map((c) => c.subject).sort()).toEqual(['one', 'two']);
    const bad = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { email: { inboundPerHour: 0 } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('config.email.inboundPerHour');
  });

  it("one sender cannot use up the tenant's hour: past 20 messages an hour that sender gets 451, another customer still gets through", async () => {
    const t = await newTenant('Sender Cap Shop');
    const to = await address(t);
    const from = `flooder-${Date.now()}@customer.example`;
    for (let i = 0; i < 20; i++) await send({ to, from, subject: `flood ${i}`, text: 'x' });
    const e = (await send({ to, from, subject: 'flood 20', text: 'x' }).catch((err: unknown) => err)) as {
      responseCode: number;
      response: string;
    };
    expect(e.responseCode).toBe(451);
    expect(e.response).toContain('from one sender');
    await send({ to, from: 'real.customer@customer.example', subject: 'my order', text: 'Where is my order?' });
    expect((await list(t)).map((c) => c.subject)).toContain('my order');
    expect((await request('GET', admin('/conversations?limit=50'), { token: t.ownerToken })).body.items).toHaveLength(
      21,
    );
  }, 60_000);

  it('the same Message-ID delivered twice is one message', async () => {
    const t = await newTenant('Dup Shop');
    const to = await address(t);
    const messageId = `<again-${Date.now()}@customer.example>`;
    await send({ to, subject: 'once', text: 'x', messageId });
    await send({ to, subject: 'once', text: 'x', messageId });
    const items = await list(t);
    expect(items).toHaveLength(1);
    expect((await detail(t, items[0]!.id)).messages).toHaveLength(1);
  });
});

describe('email: attachments', () => {
  it('are stored and offered through short-lived signed links, never as bytes in JSON', async () => {
    const t = await newTenant('Files Shop');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    await send({
      to: await address(t),
      subject: 'photo',
      text: 'see attached',
      attachments: [
        { filename: 'lamp.png', content: png, contentType: 'image/png' },
        { filename: 'receipt.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' },
      ],
    });
    const [c] = await list(t);
    const r = await request('GET', admin(`/conversations/${c!.id}`), { token: t.ownerToken });
    const files = r.body.messages[0].attachments as Array<Record<string, any>>;
    expect(files.map((f) => ({ name: f.name, contentType: f.contentType, size: f.size }))).toEqual([
      { name: 'lamp.png', contentType: 'image/png', size: png.length },
      { name: 'receipt.pdf', contentType: 'application/pdf', size: 13 },
    ]);
    expect(r.text).not.toContain(png.toString('base64').slice(0, 20));
    const url = new URL(files[0]!.url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('content-disposition')).toMatch(/^inline; filename="lamp.png"/);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(png);
    expect((await fetch(files[1]!.url)).headers.get('content-disposition')).toMatch(/^attachment;/);
    // A link altered to reach another object, or re-signed wrongly, is refused.
    const other = new URL(files[0]!.url.replace(files[0]!.id, files[1]!.id));
    expect((await fetch(other)).status).toBe(403);
    url.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(url)).status).toBe(403);
  });
});

describe('email: automatic answers', () => {
  async function knowledgeTenant(name: string) {
    const t = await newTenant(name);
    const imported = await request('POST', admin('/articles/import'), {
      token: t.ownerToken,
      body: { articles: demoArticles },
    });
    expect(imported.status).toBe(200);
    await putConfig(t, { email: { autoReply: 'knowledge' } });
    return t;
  }

  it('off by default: a new email opens a ticket and nothing is sent', async () => {
    const t = await newTenant('Quiet Shop');
    await request('POST', admin('/articles/import'), { token: t.ownerToken, body: { articles: demoArticles } });
    await send({
      to: await address(t),
      from: 'quiet@customer.example',
      subject: 'Reward points',
      text: 'do my reward points expire?',
    });
    expect(await tickets(t)).toHaveLength(1);
    const [c] = await list(t);
    expect((await detail(t, c!.id)).messages.map((m: { role: string }) => m.role)).toEqual(['user']);
  });

  it('with knowledge, a confident article answers by email saying how to reach a person; a reply then reaches the team', async () => {
    const t = await knowledgeTenant('Answering Shop');
    const from = `points-${Date.now()}@customer.example`;
    await send({ to: await address(t), from, subject: 'Reward points', text: 'do my reward points expire?' });
    const [c] = await list(t);
    const d = await detail(t, c!.id);
    expect(d.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(d.messages[1].metadata.intentDetected).toBe('knowledge_base');
    expect(d.tickets).toEqual([]);
    const [mail] = await caughtFor(from);
    expect(mail!.text).toContain('reply to this email to reach a person');
    expect(mail!.headers['auto-submitted']).toBe('auto-replied');
    await send({ to: mail!.replyTo, from, subject: 'Re: Reward points', text: 'That does not help, I need a person.' });
    expect((await detail(t, c!.id)).tickets).toHaveLength(1);
  });

  it('never answers mailing-list mail (List-Id, List-Unsubscribe, List-Post) nor mail with a null reverse-path (MAIL FROM:<>, Return-Path: <>)', async () => {
    const t = await knowledgeTenant('List Mail Shop');
    const to = await address(t);
    const ask = { subject: 'Reward points', text: 'do my reward points expire?' };
    await send({ to, from: 'a@list.example', ...ask, headers: { 'List-Id': 'Deals <deals.list.example>' } });
    await send({ to, from: 'b@list.example', ...ask, headers: { 'List-Unsubscribe': '<mailto:leave@list.example>' } });
    await send({ to, from: 'c@list.example', ...ask, headers: { 'List-Post': '<mailto:post@list.example>' } });
    await send({ to, from: 'd@customer.example', ...ask, envelope: { from: '', to } });
    await send({ to, from: 'e@customer.example', ...ask, headers: { 'Return-Path': '<>' } });
    const items = await list(t);
    expect(items).toHaveLength(5);
    const details = await Promise.all(items.map((c) => detail(t, c.id)));
    expect(details.map((d) => d.messages.map((m: { role: string }) => m.role))).toEqual(Array(5).fill(['user']));
    expect(details.every((d) => d.messages[0].email.automatic === true)).toBe(true);
    expect(await tickets(t)).toHaveLength(5);
  });

  it('never answers automatic mail, nor more than 3 times an hour to one sender', async () => {
    const t = await knowledgeTenant('Careful Shop');
    const to = await address(t);
    await send({
      to,
      from: 'robot@customer.example',
      subject: 'Reward points',
      text: 'do my reward points expire?',
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    await send({
      to,
      from: 'list@customer.example',
      subject: 'Reward points',
      text: 'do my reward points expire?',
      headers: { Precedence: 'bulk' },
    });
    await send({
      to,
      from: 'mailer-daemon@customer.example',
      subject: 'Reward points',
      text: 'do my reward points expire?',
    });
    const from = `often-${Date.now()}@customer.example`;
    for (let i = 0; i < 4; i++)
      await send({ to, from, subject: `Reward points ${i}`, text: 'do my reward points expire?' });
    const items = await list(t);
    const answered = await Promise.all(
      items.map(async (c) => (await detail(t, c.id)).messages.some((m: { role: string }) => m.role === 'assistant')),
    );
    expect(items.filter((_, i) => answered[i]).map((c) => c.visitor.email)).toEqual([from, from, from]);
    expect(await tickets(t)).toHaveLength(4);
  });
});
