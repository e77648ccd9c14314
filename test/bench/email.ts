import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransport } from 'nodemailer';
import { startLocalRuntime } from '../../local/runtime.ts';
import { fmt, percentile } from './perf/util.ts';

// `npm run bench:email`: the email channel on this machine, through the local runtime (its SMTP
// server, functions/email/receive.ts, DynamoDB Local, the stream, the dispatcher, the email queue,
// functions/email/send.ts and the catcher).
// 1. Inbound: from the SMTP client's send (a new thread) until GET /admin/conversations lists the
//    conversation (the 250 comes after the write, so this is SMTP + parse + the transaction + a list).
// 2. Outbound: from an agent's POST /admin/conversations/{id}/messages until the catcher has the mail
//    (the write, the stream poll, the dispatcher, the queue, the sender's SMTP).
// One at a time, p50 and p99. Writes bench-results/email.json. Option (env): EMAIL_BENCH_N (default 100).

const N = Number(process.env.EMAIL_BENCH_N ?? 100);
const rt = await startLocalRuntime({ tableName: `bench-email-${Date.now()}` });
const smtp = createTransport({
  host: '127.0.0.1',
  port: rt.mail!.smtpPort,
  secure: false,
  ignoreTLS: true,
  pool: true,
  maxConnections: 1,
});

const sub = `bench-${Date.now()}`;
const token = await rt.idp.token({ sub, email: `${sub}@example.com` });
const call = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${rt.url}/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return r.json() as Promise<any>;
};
await call('POST', '/auth/onboard', { tenantName: 'Bench Mail Shop' });
await call('PUT', '/settings', { config: { email: { inboundPerHour: 100_000 } } });
const to = (await call('GET', '/settings')).config.email.inboundAddress as string;

const inbound: number[] = [];
const outbound: number[] = [];
const ids: string[] = [];
for (let i = 0; i < N + 5; i++) {
  const subject = `Bench question ${i}`;
  const t0 = performance.now();
  await smtp.sendMail({ from: `customer${i}@customer.example`, to, subject, text: `Hello, this is question ${i}.` });
  let id: string | undefined;
  while (!id) id = (await call('GET', '/conversations?limit=5')).items.find((c: any) => c.subject === subject)?.id;
  if (i >= 5) inbound.push(performance.now() - t0); // the first few warm the handlers up
  ids.push(id);
}
for (let i = 0; i < N + 5; i++) {
  const before = rt.mail!.caught().length;
  const t0 = performance.now();
  await call('POST', `/conversations/${ids[i]}/messages`, { content: `Answer ${i}` });
  while (rt.mail!.caught().length === before) await new Promise((r) => setTimeout(r, 2));
  if (i >= 5) outbound.push(performance.now() - t0);
}

const row = (xs: number[]) => ({
  p50ms: Number(fmt(percentile(xs, 50), 1)),
  p99ms: Number(fmt(percentile(xs, 99), 1)),
});
const json = { n: N, inbound: row(inbound), outbound: row(outbound) };
console.log(`email, ${N} each, one at a time
  SMTP accepted -> conversation listed   p50 ${json.inbound.p50ms} ms   p99 ${json.inbound.p99ms} ms
  agent reply -> mail at the catcher     p50 ${json.outbound.p50ms} ms   p99 ${json.outbound.p99ms} ms`);
const root = fileURLToPath(new URL('../..', import.meta.url));
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results', 'email.json'), JSON.stringify(json, null, 2));
smtp.close();
await rt.stop();
