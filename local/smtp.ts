import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { SESEvent, SQSEvent } from 'aws-lambda';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

// The email channel on this machine, as SES does it in AWS:
// - an inbound SMTP server (the Nodemailer project's smtp-server) that refuses an unknown recipient
//   at RCPT with 550, stores each accepted message in the mail bucket's stand-in under
//   `inbound/<id>` (as the receipt rule's S3 action does), and invokes functions/email/receive.ts
//   with the SES event; its outcome is the answer to DATA (250, or the refusal's code);
// - a catcher: the SMTP server the sender function's nodemailer transport delivers to. It keeps
//   every message for the page at /local-mail and, as SES's configuration set would, emits the
//   events of each (Delivery; a Bounce for bounce@simulator.amazonses.com, a Complaint for
//   complaint@simulator.amazonses.com, SES's mailbox simulator) through SNS's and SQS's shapes to
//   functions/email/events.ts, naming the message by its X-SES-MESSAGE-TAGS. An address on the
//   account's suppression list is SES's `suppressionlist@simulator.amazonses.com`: accepted, then
//   a Permanent bounce of subtype OnAccountSuppressionList, as SES answers it;
// - refusals, for what SES refuses when asked to send: any address `@refused.localhost` is refused
//   at RCPT with 550 (a recipient refused for good), a message to `@rejected.localhost` at DATA with
//   554 "Message rejected" (SES's refusal of the message itself), and `@busy.localhost` at RCPT
//   with 451 (try later: the queue retries).
// SES checks SPF, DKIM and DMARC; nothing here can. The verdicts are GRAY unless the runtime was
// started with `trustVerdictHeader`, where a test's `X-Local-Verdicts: spf=pass dkim=pass dmarc=pass`
// header stands in for SES's checks (the handler itself never reads a header for them).

export interface CaughtMail {
  id: string;
  receivedAt: string;
  envelope: { from: string; to: string[] };
  raw: string;
  from: string;
  to: string;
  replyTo: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

type Invoke = (handler: string, event: unknown) => Promise<unknown>;

export interface LocalMail {
  smtpPort: number;
  catcherPort: number;
  caught(): readonly CaughtMail[];
  /** Serves /local-mail (the page) and /local-mail/messages.json; false for other paths. */
  serve(path: string, res: ServerResponse): boolean;
  stop(): Promise<void>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const listen = (server: SMTPServer, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });

const addr = (a: SMTPServerAddress | false) => (a ? a.address : '');

function verdictsOf(raw: Buffer, trust: boolean) {
  const gray = { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY' };
  if (!trust) return gray;
  const head = raw
    .subarray(0, raw.indexOf('\r\n\r\n') > 0 ? raw.indexOf('\r\n\r\n') : Math.min(raw.length, 65_536))
    .toString('latin1');
  const line = /^x-local-verdicts:\s*(.*)$/im.exec(head)?.[1] ?? '';
  const of = (k: string) =>
    new RegExp(`${k}=pass`, 'i').test(line) ? 'PASS' : new RegExp(`${k}=fail`, 'i').test(line) ? 'FAIL' : 'GRAY';
  return { spf: of('spf'), dkim: of('dkim'), dmarc: of('dmarc') };
}

function sesEvent(
  id: string,
  session: SMTPServerSession,
  verdicts: Record<'spf' | 'dkim' | 'dmarc', string>,
): SESEvent {
  const now = new Date().toISOString();
  const recipients = session.envelope.rcptTo.map((r) => r.address);
  const status = (s: string) => ({ status: s });
  return {
    Records: [
      {
        eventSource: 'aws:ses',
        eventVersion: '1.0',
        ses: {
          mail: {
            timestamp: now,
            source: addr(session.envelope.mailFrom),
            messageId: id,
            destination: recipients,
            headersTruncated: false,
            headers: [],
            commonHeaders: { returnPath: addr(session.envelope.mailFrom), date: now, messageId: id },
          },
          receipt: {
            timestamp: now,
            processingTimeMillis: 1,
            recipients,
            spamVerdict: status('PASS'),
            virusVerdict: status('PASS'),
            spfVerdict: status(verdicts.spf),
            dkimVerdict: status(verdicts.dkim),
            dmarcVerdict: status(verdicts.dmarc),
            action: {
              type: 'Lambda',
              functionArn: 'arn:aws:lambda:local:000000000000:function:email-receive',
              invocationType: 'RequestResponse',
            },
          },
        },
      },
    ],
  } as unknown as SESEvent;
}

/** SES's event for a caught message, as SNS hands it to SQS and SQS to the events function. */
function deliveryEvents(mail: CaughtMail): SQSEvent {
  const tags = Object.fromEntries(
    (mail.headers['x-ses-message-tags'] ?? '')
      .split(',')
      .map((p) => p.trim().split('='))
      .filter((kv) => kv.length === 2)
      .map(([k, v]) => [k!, [v!]]),
  );
  const base = {
    timestamp: mail.receivedAt,
    messageId: mail.id,
    source: mail.envelope.from,
    destination: mail.envelope.to,
    tags,
  };
  const list: Record<string, unknown>[] = [];
  for (const to of mail.envelope.to) {
    const bounce = /^bounce@simulator\.amazonses\.com$/i.test(to)
      ? 'General'
      : /^suppressionlist@simulator\.amazonses\.com$/i.test(to)
        ? 'OnAccountSuppressionList'
        : null;
    if (bounce) {
      list.push({
        eventType: 'Bounce',
        mail: base,
        bounce: { bounceType: 'Permanent', bounceSubType: bounce, bouncedRecipients: [{ emailAddress: to }] },
      });
    } else {
      list.push({ eventType: 'Delivery', mail: base, delivery: { recipients: [to] } });
      if (/^complaint@simulator\.amazonses\.com$/i.test(to))
        list.push({ eventType: 'Complaint', mail: base, complaint: { complainedRecipients: [{ emailAddress: to }] } });
    }
  }
  return {
    Records: list.map((e) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      md5OfBody: '',
      eventSource: 'aws:sqs',
      awsRegion: 'local',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:email-events',
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: {},
      body: JSON.stringify({
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: 'arn:aws:sns:local:000000000000:email-events',
        Message: JSON.stringify(e),
        Timestamp: new Date().toISOString(),
      }),
    })),
  } as unknown as SQSEvent;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(caught: readonly CaughtMail[]) {
  const rows = [...caught]
    .reverse()
    .map(
      (m) => `<article><h2>${escapeHtml(m.subject)}</h2>
<p><b>From</b> ${escapeHtml(m.from)} · <b>To</b> ${escapeHtml(m.to)} · <b>Reply-To</b> ${escapeHtml(m.replyTo)} · ${escapeHtml(m.receivedAt)}</p>
<pre>${escapeHtml(m.text)}</pre></article>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local mail catcher</title>
<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}article{border-bottom:1px solid #ccc;padding:1rem 0}pre{white-space:pre-wrap}</style></head>
<body><h1>Mail sent by the service (${caught.length})</h1>${rows || '<p>Nothing sent yet.</p>'}</body></html>`;
}

export async function startLocalMail(opts: {
  invoke: Invoke;
  putObject: (key: string, body: Buffer) => void;
  smtpPort?: number;
  trustVerdictHeader?: boolean;
}): Promise<LocalMail> {
  // Loaded once the runtime has set the environment the data layer reads at import.
  const { recipientTenant, EMAIL_LIMITS } = await import('#shared/domain/email/inbound.ts');
  const messageBytes = EMAIL_LIMITS.messageBytes;
  const inbound = new SMTPServer({
    name: 'mail.localhost',
    banner: 'local inbound mail (SES stand-in)',
    size: messageBytes,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, session, cb) {
      if (session.envelope.rcptTo.length >= EMAIL_LIMITS.recipients)
        return cb(smtpError(452, `4.5.3 at most ${EMAIL_LIMITS.recipients} recipients a message`));
      recipientTenant(address.address).then(
        (t) => cb(t ? undefined : smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`)),
        () => cb(smtpError(451, '4.3.0 try again later')),
      );
    },
    onData(stream, session, cb) {
      readAll(stream)
        .then(async (raw) => {
          if ((stream as Readable & { sizeExceeded?: boolean }).sizeExceeded)
            return cb(smtpError(552, `5.3.4 a message may be at most ${messageBytes} bytes`));
          const id = randomUUID().replace(/-/g, '');
          opts.putObject(`inbound/${id}`, raw);
          const result = (await opts.invoke(
            'email/receive',
            sesEvent(id, session, verdictsOf(raw, opts.trustVerdictHeader ?? false)),
          )) as { outcomes: Array<{ accepted: boolean; code?: number; reason?: string; conversationId?: string }> };
          const o = result.outcomes[0];
          if (!o?.accepted) return cb(smtpError(o?.code ?? 451, o?.reason ?? '4.3.0 not accepted'));
          cb(null, `2.0.0 queued as ${id}`);
        })
        .catch((e: unknown) => {
          console.error('local inbound mail failed', e);
          cb(smtpError(451, '4.3.0 try again later'));
        });
    },
  });

  const caught: CaughtMail[] = [];
  const catcher = new SMTPServer({
    name: 'catcher.localhost',
    banner: 'local mail catcher',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      const domain = address.address.toLowerCase().split('@')[1];
      if (domain === 'refused.localhost')
        return cb(smtpError(550, `5.1.1 <${address.address}>: Recipient address rejected: mailbox unavailable`));
      if (domain === 'busy.localhost') return cb(smtpError(451, '4.2.1 mailbox busy, try again later'));
      cb();
    },
    onData(stream, session, cb) {
      readAll(stream)
        .then(async (raw) => {
          if (session.envelope.rcptTo.some((r) => r.address.toLowerCase().endsWith('@rejected.localhost'))) {
            return cb(smtpError(554, '5.6.0 Message rejected: the message was refused'));
          }
          const p = await simpleParser(raw);
          const headers: Record<string, string> = {};
          for (const line of p.headerLines) headers[line.key] = line.line.slice(line.line.indexOf(':') + 1).trim();
          const mail: CaughtMail = {
            id: randomUUID(),
            receivedAt: new Date().toISOString(),
            raw: raw.toString('utf8'),
            envelope: { from: addr(session.envelope.mailFrom), to: session.envelope.rcptTo.map((r) => r.address) },
            from: p.from?.text ?? '',
            to: Array.isArray(p.to) ? p.to.map((t) => t.text).join(', ') : (p.to?.text ?? ''),
            replyTo: p.replyTo?.text ?? '',
            subject: p.subject ?? '',
            text: p.text ?? '',
            html: typeof p.html === 'string' ? p.html : '',
            headers,
          };
          caught.push(mail);
          cb(null, `2.0.0 caught as ${mail.id}`);
          // After the 250, as SES reports a delivery after it happened.
          await opts.invoke('email/events', deliveryEvents(mail));
        })
        .catch((e: unknown) => {
          console.error('local mail catcher failed', e);
          cb(smtpError(451, '4.3.0 try again later'));
        });
    },
  });

  const smtpPort = await listen(inbound, opts.smtpPort ?? 0);
  const catcherPort = await listen(catcher, 0);
  return {
    smtpPort,
    catcherPort,
    caught: () => caught,
    serve(path, res) {
      if (path === '/local-mail' || path === '/local-mail/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page(caught));
        return true;
      }
      if (path === '/local-mail/messages.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ items: caught }));
        return true;
      }
      return false;
    },
    async stop() {
      await Promise.all([inbound, catcher].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
