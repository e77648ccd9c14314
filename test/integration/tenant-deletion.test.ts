import { DynamoDBClient, GetItemCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { LIVE_PATH } from '#shared/edge/triggers.ts';
import { keys } from '#shared/data/keys.ts';
import { runPurge } from '#shared/domain/privacy/deletion.ts';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, startReceiver, startRuntime, type Api, type Receiver, chatOn } from './webhooks/harness.ts';
import { PASS, smtp } from './mail.ts';
import { eventually, present } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// A tenant that leaves, on a runtime with a table of its own: the owner confirms with the name;
// key, integrations and members are cut at once; the purge job removes the rest, and a scan of
// the table afterwards finds nothing of the tenant but what expires by itself within the day.

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
const chat = (widgetKey: string, path: string, body: unknown) => chatOn(rt, widgetKey, path, body);
/** The keys of `items` that do not expire by themselves within a day (rate-limit windows, idempotency records and sent events do). */
function lasting(items: Array<Record<string, unknown>>) {
  const day = Math.floor(Date.now() / 1000) + 86_400 + 60;
  return items.filter((i) => !(typeof i.expiresAt === 'number' && i.expiresAt <= day)).map((i) => `${i.pk} ${i.sk}`);
}

async function itemsOf(tenantId: string) {
  const found: Array<Record<string, unknown>> = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const r = await raw.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const i of r.Items ?? []) {
      const item = unmarshall(i);
      if (JSON.stringify(item).includes(tenantId)) found.push(item);
    }
    start = r.LastEvaluatedKey;
  } while (start);
  return found;
}

describe('deleting a tenant', () => {
  it('confirms by name, cuts key, webhooks and members at once, and the purge job leaves nothing of it behind', async () => {
    const t = await a.tenant('Leaving Shop');
    const stays = await a.tenant('Staying Shop');
    const agent = await a.member(t, 'agent');
    const hook = await a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Desk',
      config: { url: rcv.url, events: ['message.created'] },
    });
    expect(hook.status).toBe(201);
    const c = (await chat(t.widgetKey, '/message', { message: 'hello there' })).body.conversationId as string;
    await chat(t.widgetKey, '/escalate', { conversationId: c, reason: 'help' });
    await chat(t.widgetKey, `/conversations/${c}/contact`, { email: 'leaving@example.com' });
    expect((await a.call('POST', '/articles', t.token, { title: 'Returns', body: 'Within 30 days.' })).status).toBe(
      201,
    );
    expect((await a.call('PATCH', `/conversations/${c}`, t.token, { labels: ['Vip'] })).status).toBe(200);
    await rcv.waitFor(1, 20_000);
    // An email conversation: the inbound address, its reply token and Message-ID lookups are the tenant's too.
    const inbound = (await a.call('GET', '/settings', t.token)).body.config.email.inboundAddress as string;
    await smtp(rt.mail!.smtpPort).sendMail({
      from: 'Leo <leo@customer.example>',
      to: inbound,
      subject: 'Refund',
      text: 'Where is my refund?',
      attachments: [{ filename: 'receipt.txt', content: 'Receipt for Leo' }],
    });
    await eventually(async () =>
      present(
        (await a.call('GET', '/conversations', t.token)).body.items.find((x: any) => x.channel === 'email'),
        'email conversation',
      ),
    );
    const ws = new WebSocket(
      `${rt.url.replace(/^http/, 'ws')}${LIVE_PATH}?widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${c}`,
    );
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));

    expect((await a.call('POST', '/tenant/deletion', agent, { name: 'Leaving Shop' })).status).toBe(403);
    const wrong = await a.call('POST', '/tenant/deletion', t.token, { name: 'leaving shop' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].path).toBe('name');
    const del = await a.call('POST', '/tenant/deletion', t.token, { name: 'Leaving Shop' });
    expect(del.status).toBe(202);
    expect(del.body).toMatchObject({ tenantId: t.tenantId, status: 'deleting' });
    // Before the purge: the requester reads its progress; nobody else has a deletion to read.
    expect((await a.call('GET', '/tenant/deletion', t.token)).body).toEqual({
      tenantId: t.tenantId,
      tenantName: 'Leaving Shop',
      status: 'deleting',
      requestedAt: del.body.requestedAt,
      deleted: 0,
      finishedAt: null,
    });
    expect((await a.call('GET', '/tenant/deletion', agent)).status).toBe(404);
    expect((await a.call('GET', '/tenant/deletion', stays.token)).status).toBe(404);

    // At once: no chat, no socket, no member, no webhook.
    expect((await chat(t.widgetKey, '/message', { message: 'still there?' })).status).toBe(401);
    expect((await chat(t.widgetKey, '/message', { message: 'still there?', conversationId: c })).status).toBe(401);
    expect(await closed).toBeGreaterThan(0);
    expect((await a.call('GET', '/auth/me', t.token)).body.tenant ?? null).toBeNull();
    expect((await a.call('GET', '/conversations', agent)).status).toBe(403);
    const received = rcv.received.length;
    // The mail bucket holds the message's original and its attachment (the first test: nobody else's yet).
    const objects = rt.objects.keys('mail');
    expect(objects.length).toBeGreaterThanOrEqual(2);

    // The background: one run removes everything; a second has nothing to do.
    const run = (await rt.runJob('jobs/purge-tenants')) as { tenants: number; deleted: number };
    expect(run).toMatchObject({ tenants: 1, finished: 1 });
    expect(await rt.runJob('jobs/purge-tenants')).toEqual({ tenants: 0, deleted: 0, finished: 0 });
    // The requester sees it done, with every item the purge removed counted.
    const done = await a.call('GET', '/tenant/deletion', t.token);
    expect(done.body).toMatchObject({ tenantId: t.tenantId, status: 'deleted', deleted: run.deleted });
    expect(run.deleted).toBeGreaterThan(10);
    expect(Date.parse(done.body.finishedAt)).toBeGreaterThanOrEqual(Date.parse(del.body.requestedAt));
    const left = await itemsOf(t.tenantId);
    // Only what expires by itself within a day (rate-limit windows, idempotency records, events already sent) may remain.
    expect(lasting(left)).toEqual([]);
    // Nor in the mail bucket.
    expect(objects.filter((k) => rt.objects.keys('mail').includes(k))).toEqual([]);
    expect(rcv.received.length).toBe(received);
    // The other tenant is untouched; the owner may start afresh.
    expect((await chat(stays.widgetKey, '/message', { message: 'hi' })).status).toBe(200);
    expect((await a.call('POST', '/auth/onboard', t.token, { tenantName: 'Second Start' })).status).toBe(201);
  }, 90_000);

  it('a purge that runs out of time stops after a page, and the next run goes on where it stopped', async () => {
    // A tenant an earlier test (or its failed attempt) left being deleted is finished first: the counts below are this one's.
    await runPurge(() => true, 10);
    const t = await a.tenant('Big Leaving Shop');
    // The starter content alone is about two pages of 10: a few articles (each with its search
    // item) make the rest several pages, so that the second run has more than one to do.
    for (const title of ['Returns', 'Shipping', 'Warranty', 'Payments', 'Sizes', 'Gift cards']) {
      expect((await a.call('POST', '/articles', t.token, { title, body: `${title}: what to know.` })).status).toBe(201);
    }
    expect((await a.call('POST', '/tenant/deletion', t.token, { name: 'Big Leaving Shop' })).status).toBe(202);

    // Time for one page (of 10 items) only, then none: the tenant is still being deleted, with the page counted.
    let pages = 0;
    const first = await runPurge(() => pages++ < 1, 10);
    expect(first).toMatchObject({ tenants: 1, deleted: 10, finished: 0 });
    expect((await a.call('GET', '/tenant/deletion', t.token)).body).toMatchObject({ status: 'deleting', deleted: 10 });
    // The next run finishes it; the count is the whole, each item once.
    const second = await runPurge(() => true, 10);
    expect(second).toMatchObject({ tenants: 1, finished: 1 });
    expect(second.deleted).toBeGreaterThan(10);
    const done = (await a.call('GET', '/tenant/deletion', t.token)).body;
    expect(done).toMatchObject({ status: 'deleted', deleted: 10 + second.deleted });
    expect(lasting(await itemsOf(t.tenantId))).toEqual([]);
  }, 90_000);
  it('mail to a tenant being deleted is refused with 550, a live ticket issued before no longer opens a socket, and its addresses are never given again', async () => {
    const t = await a.tenant('Reused Name Shop');
    const inbound = (await a.call('GET', '/settings', t.token)).body.config.email.inboundAddress as string;
    const mail = smtp(rt.mail!.smtpPort);
    const from = 'Cleo <cleo@customer.example>';
    await mail.sendMail({ from, to: inbound, subject: 'Order', text: 'Where is my order?', headers: PASS });
    const conv = await eventually(
      async () =>
        present(
          (await a.call('GET', '/conversations', t.token)).body.items.find((x: any) => x.channel === 'email'),
          'email conversation',
        ).id as string,
    );
    const item = await raw.send(
      new GetItemCommand({ TableName: table, Key: marshall(keys.conversation(t.tenantId, conv)) }),
    );
    const replyTo = inbound.replace('@', `+${unmarshall(item.Item!).email.token}@`);
    const ticket = (await a.call('POST', '/live/tickets', t.token)).body.ticket as string;

    expect((await a.call('POST', '/tenant/deletion', t.token, { name: 'Reused Name Shop' })).status).toBe(202);
    // From the request on, before any purge: the inbound address and the reply address are refused at RCPT.
    await expect(
      mail.sendMail({ from, to: inbound, subject: 'again', text: 'x', headers: PASS }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await expect(
      mail.sendMail({ from, to: replyTo, subject: 'Re: Order', text: 'x', headers: PASS }),
    ).rejects.toMatchObject({ responseCode: 550 });
    // The owner's ticket, issued a moment before, opens nothing.
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${rt.url.replace(/^http/, 'ws')}${LIVE_PATH}?ticket=${encodeURIComponent(ticket)}`);
      ws.once('open', () => {
        ws.close();
        resolve(101);
      });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(0));
    });
    expect(refused).toBe(401);

    await rt.runJob('jobs/purge-tenants');
    // A new tenant of the same name gets another address; the old ones reach nobody.
    const next = await a.tenant('Reused Name Shop');
    const nextInbound = (await a.call('GET', '/settings', next.token)).body.config.email.inboundAddress as string;
    expect(nextInbound).not.toBe(inbound);
    expect(nextInbound.startsWith('reused-name-shop-')).toBe(true);
    await expect(
      mail.sendMail({ from, to: inbound, subject: 'after', text: 'x', headers: PASS }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await expect(
      mail.sendMail({ from, to: replyTo, subject: 'Re: Order', text: 'x', headers: PASS }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect((await a.call('GET', '/conversations', next.token)).body.items).toEqual([]);
    // The tombstone names no tenant: nothing of the deleted one lasts.
    expect(lasting(await itemsOf(t.tenantId))).toEqual([]);
  }, 90_000);
});
