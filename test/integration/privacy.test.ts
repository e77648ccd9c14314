import { randomUUID } from 'node:crypto';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { LIVE_PATH } from '#shared/edge/triggers.ts';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, startReceiver, startRuntime, type Api, type Receiver, chatOn } from './webhooks/harness.ts';
import { hmac, smtp } from './mail.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// A customer's export and erasure, through the HTTP API of a runtime with its own table, so that
// the whole table (and each index) can be scanned afterwards for anything the customer wrote or was.

let rt: LocalRuntime;
let a: Api;
let rcv: Receiver;
let table: string;
beforeAll(async () => {
  rt = await startRuntime();
  table = process.env.TABLE_NAME!;
  a = api(rt);
  rcv = await startReceiver(() => 200);
}, 60_000);
afterAll(async () => {
  await rcv?.close();
  await rt?.stop();
});

const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  // The table is this file's runtime's, known once it started.
  credentials: async () => localDatabaseCredentials(table),
});

// As the widget does, every call carries an Idempotency-Key (whose stored answers are erased too).
const chat = (widgetKey: string, path: string, body: unknown) =>
  chatOn(rt, widgetKey, path, body, { 'idempotency-key': randomUUID() });

/** Every item of the table and of each index, as JSON text with its partition key. */
async function scanAll(): Promise<Array<{ pk: string; text: string }>> {
  const out: Array<{ pk: string; text: string }> = [];
  for (const index of [undefined, 'gsi1', 'gsi2', 'gsi3']) {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const r = await raw.send(
        new ScanCommand({
          TableName: table,
          ...(index ? { IndexName: index } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const i of r.Items ?? []) {
        const item = unmarshall(i);
        out.push({ pk: item.pk as string, text: JSON.stringify(item) });
      }
      start = r.LastEvaluatedKey;
    } while (start);
  }
  return out;
}

const NAME = 'Zebulon Quimby';
const EMAIL = 'zeb.quimby@example.com';
const TEXT = 'my parcel XQZ-7781 never reached Larkspur Lane';
const SECRETS = ['Zebulon', 'Quimby', 'quimby', 'XQZ-7781', 'Larkspur', 'Quimbyfrog'];

describe("a customer's data", () => {
  it('exports everything held about them, erases it everywhere, and leaves counts, shells and the other tenant alone', async () => {
    const t = await a.tenant('Privacy Shop');
    const other = await a.tenant('Other Shop');
    const secret = (await a.call('POST', '/settings/identity-secret/rotate', t.token)).body.secret as string;
    const hook = await a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Helpdesk',
      config: {
        url: rcv.url,
        events: ['message.created', 'conversation.escalated', 'ticket.created', 'conversation.rated'],
      },
    });
    expect(hook.status).toBe(201);

    // The starter order_status hands a message naming an order to the team at once; this shop has
    // it answer instead (same phrases), so that the customer asks for a person themselves, with their own reason.
    const intents = (await a.call('GET', '/intents', t.token)).body.items as Array<{
      id: string;
      name: string;
      trainingPhrases: string[];
    }>;
    const orders = intents.find((i) => i.name === 'order_status')!;
    expect(
      (
        await a.call('PUT', `/intents/${orders.id}`, t.token, {
          name: orders.name,
          trainingPhrases: orders.trainingPhrases,
          response: 'Your tracking link is in your shipping email.',
          entities: [],
          action: 'reply',
        })
      ).status,
    ).toBe(200);

    // A verified customer: a message, an escalation, an agent's answer, a rating with a comment.
    const userHash = hmac(secret, 'u-zeb');
    const emailHash = hmac(secret, EMAIL);
    const m1 = await chat(t.widgetKey, '/message', {
      message: TEXT,
      visitor: { userId: 'u-zeb', name: NAME, email: EMAIL, userHash, emailHash },
    });
    expect(m1.status).toBe(200);
    const c1 = m1.body.conversationId as string;
    expect((await chat(t.widgetKey, '/escalate', { conversationId: c1, reason: 'Larkspur parcel lost' })).status).toBe(
      200,
    );
    // The agent's reply as the dashboard sends it, with an Idempotency-Key.
    const agentReply = await a.call(
      'POST',
      `/conversations/${c1}/messages`,
      t.token,
      { content: 'Sorry Zebulon, we will look' },
      { 'idempotency-key': randomUUID() },
    );
    expect(agentReply.status).toBe(201);
    expect(
      (await chat(t.widgetKey, `/conversations/${c1}/rating`, { score: 2, comment: 'Quimby is unhappy' })).status,
    ).toBe(200);
    // The same person, anonymous on another day, leaving the address for the reply.
    const m2 = await chat(t.widgetKey, '/message', { message: 'Quimbyfrog refund please' });
    const c2 = m2.body.conversationId as string;
    expect((await chat(t.widgetKey, `/conversations/${c2}/contact`, { email: EMAIL })).status).toBe(200);
    // The team taught an example from their message.
    const detail = await a.call('GET', `/conversations/${c1}`, t.token);
    const userMessage = detail.body.messages.find((m: any) => m.role === 'user');
    const taught = await a.call('POST', '/nlu/examples', t.token, {
      message: TEXT,
      target: { none: true },
      conversationId: c1,
      messageId: userMessage.id,
    });
    expect(taught.status).toBe(201);
    // Another tenant's customer with the same address.
    const b = await chat(other.widgetKey, '/message', { message: 'Tenant B keeps this Larkspur note' });
    expect(
      (await chat(other.widgetKey, `/conversations/${b.body.conversationId}/contact`, { email: EMAIL })).status,
    ).toBe(200);

    // The customer's socket on their conversation.
    const ws = new WebSocket(
      `${rt.url.replace(/^http/, 'ws')}${LIVE_PATH}?widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${c1}`,
    );
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // Every delivery settled (the stream has carried every event) before the erasure reads them.
    await eventually(async () => {
      const log = (await a.call('GET', `/integrations/${hook.body.id}/deliveries`, t.token)).body.items as any[];
      expect(log.length).toBeGreaterThanOrEqual(6);
      expect(log.every((d) => d.status === 'succeeded')).toBe(true);
    });
    const counts = async () => {
      const { kpis, series, topIntents } = (await a.call('GET', '/stats', t.token)).body;
      return { kpis, series, topIntents };
    };
    const statsBefore = await counts();

    // Export: by email both conversations, by verified user id the one the site signed.
    const viewer = await a.member(t, 'agent');
    expect((await a.call('POST', '/customers/export', viewer, { email: EMAIL })).status).toBe(403);
    expect((await a.call('POST', '/customers/export', t.token, { email: EMAIL, userId: 'u-zeb' })).status).toBe(400);
    const exp = await a.call('POST', '/customers/export', t.token, { email: EMAIL.toUpperCase() });
    expect(exp.status).toBe(200);
    expect(exp.body.conversations.map((c: any) => c.id).sort()).toEqual([c1, c2].sort());
    const e1 = exp.body.conversations.find((c: any) => c.id === c1);
    expect(e1.messages.map((m: any) => m.content)).toContain(TEXT);
    expect(e1.messages.map((m: any) => m.content)).toContain('Sorry Zebulon, we will look');
    expect(e1.tickets[0]).toMatchObject({ reason: 'Larkspur parcel lost', status: 'in_progress' });
    expect(e1.tickets[0].history[0]).toMatchObject({ action: 'ticket.created' });
    expect(exp.body.ratings).toEqual([
      expect.objectContaining({ conversationId: c1, score: 2, comment: 'Quimby is unhappy' }),
    ]);
    expect(exp.body.examples).toEqual([expect.objectContaining({ id: taught.body.id, message: TEXT })]);
    expect(exp.body.visitors).toContainEqual({
      userId: 'u-zeb',
      name: NAME,
      email: EMAIL,
      verified: true,
      emailVerified: true,
    });
    expect(exp.body.emailAddresses).toEqual([EMAIL]);
    expect(exp.text).not.toContain('Tenant B');
    const byUser = await a.call('POST', '/customers/export', t.token, { userId: 'u-zeb' });
    expect(byUser.body.conversations.map((c: any) => c.id)).toEqual([c1]);

    // Erase.
    expect((await a.call('POST', '/customers/erase', viewer, { email: EMAIL })).status).toBe(403);
    const erased = await a.call('POST', '/customers/erase', t.token, { email: EMAIL });
    expect(erased.status).toBe(200);
    // Their open ticket leaves the team's queue: closed, and the answer says so.
    expect(erased.body).toMatchObject({ conversations: 2, examples: 1, ticketsClosed: 1 });
    expect(await closed).toBeGreaterThan(0);

    const items = await scanAll();
    const mine = items.filter((i) => !i.pk.startsWith(`TENANT#${other.tenantId}`));
    for (const s of SECRETS)
      expect(
        mine.filter((i) => i.text.includes(s)).map((i) => i.text),
        s,
      ).toEqual([]);
    expect(mine.filter((i) => i.text.toLowerCase().includes(EMAIL))).toEqual([]);
    // Tenant B's customer is another customer: untouched.
    const theirs = items.filter((i) => i.pk.startsWith(`TENANT#${other.tenantId}`));
    expect(theirs.some((i) => i.text.includes('Tenant B keeps this Larkspur note'))).toBe(true);
    expect(theirs.some((i) => i.text.includes(EMAIL))).toBe(true);
    expect((await a.call('POST', '/customers/export', other.token, { email: EMAIL })).body.conversations).toHaveLength(
      1,
    );
    // Tenant B's own erasure of the address touches only B: A's audit and shells do not move.
    const auditBefore = (await a.call('GET', '/audit?category=privacy', t.token)).body.items.length;
    expect((await a.call('POST', '/customers/erase', other.token, { email: EMAIL })).body.conversations).toBe(1);
    expect((await a.call('GET', '/audit?category=privacy', t.token)).body.items).toHaveLength(auditBefore);
    expect((await a.call('GET', '/audit?category=privacy', other.token)).body.items.map((i: any) => i.action)).toEqual([
      'customer.erased',
      'customer.exported',
    ]);

    // Shells stay: the conversation reads, the ticket is numbered and closed (audited as the eraser's close), /stats
    // moved only by that ticket leaving the open ones.
    const shell = await a.call('GET', `/conversations/${c1}`, t.token);
    expect(shell.status).toBe(200);
    expect(shell.body.messages.every((m: any) => m.content === '[erased]')).toBe(true);
    expect(shell.body.conversation.visitor).toBeNull();
    const ticket = await a.call('GET', `/tickets/${shell.body.tickets[0].id}`, t.token);
    expect(ticket.body.ticket).toMatchObject({ status: 'closed', number: 1 });
    expect(ticket.body.auditTrail).toContainEqual(
      expect.objectContaining({
        action: 'ticket.updated',
        actor: { type: 'user', id: t.sub },
        changes: { status: { from: 'in_progress', to: 'closed' } },
      }),
    );
    expect(shell.body.conversation.status).toBe('closed');
    const statsAfter = await counts();
    expect(statsAfter.kpis.openTickets).toBe(statsBefore.kpis.openTickets - 1);
    expect({ ...statsAfter, kpis: { ...statsAfter.kpis, openTickets: 0 } }).toEqual({
      ...statsBefore,
      kpis: { ...statsBefore.kpis, openTickets: 0 },
    });
    expect((await a.call('GET', '/nlu/examples', t.token)).body.items).toEqual([]);

    // The audit names the request, not the customer.
    const audit = await a.call('GET', '/audit?category=privacy', t.token);
    expect(audit.body.items.map((i: any) => i.action)).toEqual([
      'customer.erased',
      'customer.exported',
      'customer.exported',
    ]);
    expect(audit.body.items[0]).toMatchObject({
      actor: { type: 'user', id: t.sub },
      target: { type: 'customer', id: erased.body.reference },
    });
    for (const s of [...SECRETS, EMAIL, 'u-zeb']) expect(audit.text).not.toContain(s);

    // Twice is harmless.
    const again = await a.call('POST', '/customers/erase', t.token, { email: EMAIL });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ conversations: 0, examples: 0, ticketsClosed: 0 });
    expect((await a.call('POST', '/customers/export', t.token, { userId: 'u-zeb' })).body.conversations).toEqual([]);
  }, 90_000);
});

describe("an email customer's data", () => {
  const ADDR = 'orla.fenwick@example.org';
  const SUBJECT = 'Fenwick teapot cracked';
  const BODY = 'the Marrowby teapot arrived in pieces';
  const BOUNCER = 'bounce@simulator.amazonses.com';

  const caught = async (match: (m: Record<string, any>) => boolean) => {
    let found: Record<string, any> | undefined;
    await eventually(async () => {
      const r = await fetch(`${rt.mailUrl}/messages.json`);
      found = ((await r.json()) as { items: Array<Record<string, any>> }).items.find(match);
      expect(found).toBeDefined();
    });
    return found!;
  };

  it('exports the email facts and erases the address, subject, text, lookups, suppression and stored objects', async () => {
    const t = await a.tenant('Mail Privacy Shop');
    const to = (await a.call('GET', '/settings', t.token)).body.config.email.inboundAddress as string;
    await smtp(rt.mail!.smtpPort).sendMail({
      from: `Orla Fenwick <${ADDR}>`,
      to,
      subject: SUBJECT,
      text: BODY,
      messageId: '<fenwick-1@example.org>',
      attachments: [{ filename: 'fenwick-receipt.txt', content: 'Receipt for Orla Fenwick, Marrowby' }],
    });
    const [c] = (await a.call('GET', '/conversations', t.token)).body.items as any[];
    const first = (await a.call('GET', `/conversations/${c.id}`, t.token)).body.messages[0];
    const links = [first.email.originalUrl as string, first.attachments[0].url as string];
    for (const l of links) expect((await fetch(l)).status).toBe(200);
    const objectsBefore = rt.objects.keys('mail');

    // An agent's reply is sent and delivered; the customer answers it by the reply address.
    const reply = await a.call('POST', `/conversations/${c.id}/messages`, t.token, {
      content: 'Sorry Orla, a new teapot is on its way',
    });
    expect(reply.status).toBe(201);
    const sent = await caught((m) => m.envelope.to.includes(ADDR) && m.raw.includes(c.id));
    const status = async () =>
      (await a.call('GET', `/conversations/${c.id}`, t.token)).body.messages.find(
        (m: any) => m.id === reply.body.message.id,
      )?.delivery?.status;
    await eventually(async () => expect(await status()).toBe('delivered'));
    await smtp(rt.mail!.smtpPort).sendMail({
      from: ADDR,
      to: sent.replyTo,
      subject: `Re: ${SUBJECT}`,
      text: 'Thanks, Fenwick household',
    });
    expect((await a.call('GET', `/conversations/${c.id}`, t.token)).body.messages).toHaveLength(3);

    // Another customer whose address bounces: it is suppressed.
    await smtp(rt.mail!.smtpPort).sendMail({ from: BOUNCER, to, subject: 'Bouncing', text: 'hello' });
    const bc = ((await a.call('GET', '/conversations', t.token)).body.items as any[]).find((x) => x.id !== c.id);
    expect((await a.call('POST', `/conversations/${bc.id}/messages`, t.token, { content: 'Hi there' })).status).toBe(
      201,
    );
    await eventually(async () =>
      expect((await a.call('GET', '/settings/email/suppressions', t.token)).body.items).toHaveLength(1),
    );
    const counts = async () => {
      const { kpis, series, topIntents } = (await a.call('GET', '/stats', t.token)).body;
      return { kpis, series, topIntents };
    };
    const statsBefore = await counts();

    // Export: the conversation (found by the sender's address), its email fields and the delivery facts.
    const exp = await a.call('POST', '/customers/export', t.token, { email: ADDR.toUpperCase() });
    expect(exp.status).toBe(200);
    expect(exp.body.conversations.map((x: any) => x.id)).toEqual([c.id]);
    expect(exp.body.conversations[0].messages.map((m: any) => m.content)).toEqual([
      BODY,
      'Sorry Orla, a new teapot is on its way',
      'Thanks, Fenwick household',
    ]);
    expect(exp.body.emailAddresses).toEqual([ADDR]);
    expect(exp.body.email.conversations).toEqual([{ conversationId: c.id, subject: SUBJECT, customer: ADDR }]);
    expect(exp.body.email.messages).toEqual([
      expect.objectContaining({
        conversationId: c.id,
        from: ADDR,
        subject: SUBJECT,
        messageIdHeader: '<fenwick-1@example.org>',
        attachments: [expect.objectContaining({ name: 'fenwick-receipt.txt' })],
      }),
      expect.objectContaining({ conversationId: c.id, from: ADDR, subject: `Re: ${SUBJECT}`, attachments: [] }),
    ]);
    expect(exp.body.email.deliveries).toEqual([
      {
        conversationId: c.id,
        messageId: reply.body.message.id,
        to: ADDR,
        status: 'delivered',
        updatedAt: expect.any(String),
      },
    ]);
    expect(exp.body.email.suppressions).toEqual([]);
    const bexp = await a.call('POST', '/customers/export', t.token, { email: BOUNCER });
    expect(bexp.body.email.suppressions).toEqual([{ email: BOUNCER, reason: 'bounce', createdAt: expect.any(String) }]);
    expect(bexp.body.email.deliveries).toEqual([expect.objectContaining({ to: BOUNCER, status: 'bounced' })]);

    // Erase both.
    expect((await a.call('POST', '/customers/erase', t.token, { email: ADDR })).body).toMatchObject({
      conversations: 1,
      ticketsClosed: 1,
    });
    expect((await a.call('POST', '/customers/erase', t.token, { email: BOUNCER })).body).toMatchObject({
      conversations: 1,
      ticketsClosed: 1,
    });

    const items = await scanAll();
    for (const s of [ADDR, 'fenwick', 'marrowby', 'teapot', BOUNCER, 'bouncing']) {
      expect(
        items.filter((i) => i.text.toLowerCase().includes(s)).map((i) => i.text),
        s,
      ).toEqual([]);
    }
    // The stored original and the attachment are gone from the mail bucket.
    for (const l of links) expect((await fetch(l)).status).toBe(404);
    const left = rt.objects.keys('mail');
    expect(objectsBefore.filter((k) => left.includes(k))).toEqual([]);
    expect((await a.call('GET', '/settings/email/suppressions', t.token)).body.items).toEqual([]);
    // The shell stays and the counts do not move but for the two tickets closed; the address opens a new conversation, not the erased one.
    const shell = (await a.call('GET', `/conversations/${c.id}`, t.token)).body;
    expect(shell.messages.map((m: any) => m.content)).toEqual(['[erased]', '[erased]', '[erased]']);
    expect(shell.messages.every((m: any) => !m.email && !m.attachments)).toBe(true);
    const statsAfter = await counts();
    expect(statsAfter.kpis.openTickets).toBe(statsBefore.kpis.openTickets - 2);
    expect({ ...statsAfter, kpis: { ...statsAfter.kpis, openTickets: 0 } }).toEqual({
      ...statsBefore,
      kpis: { ...statsBefore.kpis, openTickets: 0 },
    });
    await smtp(rt.mail!.smtpPort).sendMail({ from: ADDR, to: sent.replyTo, subject: 'again', text: 'hello again' });
    expect((await a.call('GET', `/conversations/${c.id}`, t.token)).body.messages).toHaveLength(3);
  }, 90_000);
});
