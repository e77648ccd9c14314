import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, startReceiver, startRuntime, type Api, type Receiver } from './webhooks/harness.ts';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { receiveEmail } from '#shared/domain/email/inbound.ts';
import { smtp } from './mail.ts';
import { eventually } from '../support/eventually.ts';

// email.received and email.bounced through the whole pipeline: SMTP in, the outbox, the stream, the
// dispatcher, the delivery queue, a signed webhook to a receiver on loopback; and the email queue's
// retries of a send the recipient's server defers (this runtime compresses the queues' timeouts).

let rt: LocalRuntime;
let a: Api;
let rcv: Receiver;
beforeAll(async () => {
  rt = await startRuntime();
  a = api(rt);
  rcv = await startReceiver();
}, 60_000);
afterAll(async () => {
  await rcv?.close();
  await rt?.stop();
});

/** A customer's mail from `from` to the tenant's inbound address, and the team's reply to it. */
async function repliedThread(t: { token: string }, from: string, subject: string) {
  const to = (await a.call('GET', '/settings', t.token)).body.config.email.inboundAddress as string;
  await smtp(rt.mail!.smtpPort).sendMail({ from, to, subject, text: 'hi' });
  const list = await a.call('GET', '/conversations', t.token);
  expect(list.status, list.text).toBe(200);
  const conversationId = list.body.items[0].id as string;
  const reply = await a.call('POST', `/conversations/${conversationId}/messages`, t.token, { content: 'Hello back' });
  expect(reply.status).toBe(201);
  return { conversationId, reply };
}

describe('email events out', () => {
  it("a received mail and its reply's hard bounce reach a subscribed webhook", async () => {
    const t = await a.tenant('Hooked Mail Shop');
    const created = await a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Mail',
      config: { url: rcv.url, events: ['email.received', 'email.bounced'] },
    });
    expect(created.status).toBe(201);
    const { conversationId, reply } = await repliedThread(t, 'bounce@simulator.amazonses.com', 'Hello there');

    const got = await rcv.waitFor(2, 20_000);
    const wh = new Webhook(created.body.credentials.secret as string);
    const bodies = got.map(
      (r) => wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> },
    );
    expect(bodies.find((b) => b.type === 'email.received')!.data).toMatchObject({
      conversationId,
      from: 'bounce@simulator.amazonses.com',
      verified: false,
      subject: 'Hello there',
    });
    expect(bodies.find((b) => b.type === 'email.bounced')!.data).toEqual({
      conversationId,
      messageId: reply.body.message.id,
      email: 'bounce@simulator.amazonses.com',
      kind: 'bounce',
    });
  });

  it('a reply whose recipient is refused when sending emits the same email.bounced as a bounce', async () => {
    const t = await a.tenant('Refused Hook Shop');
    const created = await a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Mail',
      config: { url: rcv.url, events: ['email.bounced'] },
    });
    expect(created.status).toBe(201);
    const before = rcv.received.length;
    const { conversationId, reply } = await repliedThread(t, 'gone@refused.localhost', 'Refused at send');

    const wh = new Webhook(created.body.credentials.secret as string);
    const got = await rcv.waitFor(before + 1, 20_000);
    const bodies = got
      .slice(before)
      .map(
        (r) =>
          wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> },
      );
    expect(bodies).toEqual([
      {
        type: 'email.bounced',
        timestamp: expect.any(String),
        data: {
          conversationId,
          messageId: reply.body.message.id,
          email: 'gone@refused.localhost',
          kind: 'bounce',
        },
      },
    ]);
  });

  it('a recipient deferred when sending (451) is retried by the queue, never given a final status nor suppressed', async () => {
    const t = await a.tenant('Deferred Mail Shop');
    const { conversationId, reply } = await repliedThread(t, 'ann@busy.localhost', 'Deferred at send');
    // Each receive tries again (visibility compressed here); after the queue's 5 receives, its dead-letter queue.
    const dead = await eventually(() => {
      const d = rt.emailQueue.deadLetters.find((x) => x.body.includes(reply.body.message.id as string));
      if (!d) throw new Error('the deferred send was never dead-lettered');
      return d;
    });
    expect(dead.receiveCount).toBe(5);
    const detail = await a.call('GET', `/conversations/${conversationId}`, t.token);
    expect(detail.body.messages.find((m: { id: string }) => m.id === reply.body.message.id).delivery).toEqual({
      status: 'sending',
    });
    expect((await a.call('GET', '/settings/email/suppressions', t.token)).body.items).toEqual([]);
  });
});

describe('a refused mail in AWS', () => {
  it("is answered with a bounce to the envelope sender (SES said 250 already), a few an hour at most; the local dialogue's refusal sends none", async () => {
    const t = await a.tenant('Bounce Back Shop');
    const to = (await a.call('GET', '/settings', t.token)).body.config.email.inboundAddress as string;
    const sender = `too-many-files-${Date.now()}@customer.example`;
    const raw = await new MailComposer({
      from: sender,
      to,
      subject: 'files',
      text: 'x',
      attachments: Array.from({ length: 21 }, (_, i) => ({ filename: `f${i}.txt`, content: `file ${i}` })),
    })
      .compile()
      .build();
    const mail = (bounce: boolean) =>
      receiveEmail({
        rawKey: `inbound/test-${Date.now()}`,
        raw,
        recipients: [to],
        envelopeFrom: sender,
        bounce,
        verdicts: { spf: 'PASS', dkim: 'PASS', dmarc: 'PASS' },
      });
    const bounces = () => rt.mail!.caught().filter((m) => m.envelope.to.includes(sender));
    expect(await mail(false)).toMatchObject({ accepted: false, code: 552 });
    expect(bounces()).toEqual([]);
    for (let i = 0; i < 4; i++) expect(await mail(true)).toMatchObject({ accepted: false, code: 552 });
    const got = bounces();
    expect(got).toHaveLength(3);
    expect(got[0]).toMatchObject({
      subject: 'Undelivered: your message was refused',
      from: expect.stringContaining('mailer-daemon@'),
    });
    expect(got[0]!.text).toContain('at most 20 attachments');
    expect(got[0]!.headers['auto-submitted']).toBe('auto-replied');
    expect((await a.call('GET', '/conversations', t.token)).body.items).toEqual([]);
  });
});
