import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalOf } from '#shared/domain/email/outbound.ts';

// What SES's refusals of SendEmail mean for a message: the errors as the real SDK raises them
// (through nodemailer's SES transport, as the sender uses it) from SES v2's REST-JSON answers,
// served by an HTTP server on loopback.

const TO = 'ann@customer.example';
let server: Server;
let answer: { status: number; type: string; message: string } = { status: 200, type: '', message: '' };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        'x-amzn-errortype': answer.type,
        'x-amzn-requestid': 'req-1',
      });
      res.end(JSON.stringify({ message: answer.message }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function refusedBy(status: number, type: string, message: string): Promise<unknown> {
  answer = { status, type, message };
  const sesClient = new SESv2Client({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
  });
  const mailer = createTransport({ SES: { sesClient, SendEmailCommand } });
  try {
    await mailer.sendMail({ from: 'shop@mail.example', to: TO, subject: 'Hi', text: 'Hello' });
  } catch (e) {
    return e;
  }
  throw new Error('SES answered the send');
}

describe('a send SES refuses', () => {
  it("MessageRejected is failed, with SES's words and without the recipient's address", async () => {
    const e = await refusedBy(
      400,
      'MessageRejected',
      `Email address is not verified. The following identities failed the check in region EU-WEST-1: ${TO}`,
    );
    expect((e as Error).name).toBe('MessageRejected');
    expect(refusalOf(e, TO)).toEqual({
      status: 'failed',
      reason:
        'SES refused the message: MessageRejected: Email address is not verified. The following identities failed the check in region EU-WEST-1: the recipient',
    });
  });

  it('a From domain not verified, or sending paused, is failed too', async () => {
    expect(refusalOf(await refusedBy(400, 'MailFromDomainNotVerifiedException', 'not verified'), TO)?.status).toBe(
      'failed',
    );
    expect(refusalOf(await refusedBy(400, 'SendingPausedException', 'paused'), TO)?.status).toBe('failed');
  });

  it("throttling and SES's own failures are transient: null, so the queue retries", async () => {
    expect(refusalOf(await refusedBy(429, 'TooManyRequestsException', 'slow down'), TO)).toBeNull();
    expect(refusalOf(await refusedBy(400, 'LimitExceededException', 'quota'), TO)).toBeNull();
    expect(refusalOf(await refusedBy(500, 'InternalFailure', 'oops'), TO)).toBeNull();
    expect(refusalOf(await refusedBy(503, 'ServiceUnavailable', 'later'), TO)).toBeNull();
  });

  it("an error that is neither SES's answer nor an SMTP reply (a network failure) is transient", () => {
    expect(refusalOf(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), TO)).toBeNull();
  });
});
