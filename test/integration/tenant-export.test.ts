import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { admin, chat, expectProblem, memberToken, newSub, newTenant, request, send, tokenFor } from './client.ts';
import { eventually } from '../support/eventually.ts';
import { untilIndexed } from '../fixtures/indexed.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// A tenant that leaves takes its data (`npm run export-tenant`), and an export imported into a
// fresh tenant (`npm run import-tenant`) reads back the same through the API: run as an operator
// runs them, against DynamoDB Local.

const TABLE = 'support-assistant-test';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const raw = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: localDatabaseCredentials(TABLE),
  }),
);
const script = async (name: string, ...args: string[]) =>
  (
    await run(process.execPath, ['--import', 'tsx', `bin/${name}.ts`, ...args], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        TABLE_NAME: TABLE,
        DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_REGION: 'us-east-1',
      },
    })
  ).stdout;

/** The export job once it is done; `each` sees every answer on the way. */
const untilExported = (token: string, id: string, each: (job: any) => void = () => {}) =>
  eventually(
    async () => {
      const r = await request('GET', admin(`/tenant/export/${id}`), { token });
      expect(r.status).toBe(200);
      each(r.body);
      expect(r.body.status, `export ${id}`).toBe('done');
      return r.body;
    },
    { timeout: 60_000 },
  );

describe("a tenant's export and import", () => {
  it('exports every partition as JSON lines and an import into a fresh tenant reads back the same', async () => {
    const t = await newTenant('Leaving Shop');
    const call = (method: string, path: string, body?: unknown, token = t.ownerToken) =>
      request(method, admin(path), { token, ...(body === undefined ? {} : { body }) });
    expect(
      (
        await call('PUT', '/settings', {
          config: { assistant: { greeting: 'Ahoy' }, retention: { conversationDays: 365 } },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('POST', '/intents', {
          name: 'delivery_slots',
          trainingPhrases: ['which delivery slots do you have'],
          response: 'Mornings and evenings.',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/articles', {
          title: 'Returns',
          body: 'Send it back within **30 days**.',
          questions: ['can I return it'],
        })
      ).status,
    ).toBe(201);
    expect(
      (await call('POST', '/saved-replies', { shortcut: 'thanks', title: 'Thanks', body: 'Thank you!' })).status,
    ).toBe(201);
    const c1 = (await send(t, 'when are you open')).body.conversationId as string;
    const c2 = (await send(t, 'my order is broken')).body.conversationId as string;
    const esc = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: c2, reason: 'broken order' },
    });
    expect((await call('POST', `/conversations/${c2}/messages`, { content: 'We are on it' })).status).toBe(201);
    expect((await call('PATCH', `/tickets/${esc.body.ticketId}`, { priority: 'high' })).status).toBe(200);
    expect((await call('PATCH', `/conversations/${c1}`, { labels: ['Hours'] })).status).toBe(200);
    expect(
      (
        await request('POST', chat(`/conversations/${c2}/contact`), {
          widgetKey: t.widgetKey,
          body: { email: 'move@example.com' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('POST', '/nlu/examples', {
          message: 'my order is broken',
          target: { none: true },
          conversationId: c2,
        })
      ).status,
    ).toBe(201);

    const lines = (await script('export-tenant', t.tenantId)).trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'tenant-export/1', tenantId: t.tenantId });
    const items = lines.slice(1).map((l) => JSON.parse(l));
    // Every partition the tenant owns, and nothing of another tenant's.
    for (const type of [
      'tenant',
      'intent',
      'article',
      'searchable',
      'savedReply',
      'conversation',
      'message',
      'ticket',
      'audit',
      'example',
      'labelled',
      'customerLink',
      'retention',
    ]) {
      expect(
        items.some((i) => i.type === type),
        type,
      ).toBe(true);
    }
    expect(items.every((i) => JSON.stringify(i).includes(t.tenantId))).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'tenant-'));
    writeFileSync(join(dir, 'tenant.jsonl'), `${lines.join('\n')}\n`);
    const sub = newSub('mover');
    const imported = JSON.parse(await script('import-tenant', join(dir, 'tenant.jsonl'), sub, `${sub}@example.com`));
    const token = await tokenFor(sub, `${sub}@example.com`);
    // The indexer embeds the imported intents and articles a moment after the import (later on a busy
    // machine): the reads below are compared once neither tenant has any still being embedded.
    await Promise.all([t.ownerToken, token].map((k) => untilIndexed(inject('baseUrl'), k, ['intents', 'articles'])));
    expect((await request('GET', admin('/auth/me'), { token })).body).toMatchObject({
      tenant: { id: imported.tenant.id, name: 'Leaving Shop' },
      role: 'owner',
    });

    // The same reads, through the API, of the old tenant and of the new one.
    // The team is not carried (the new owner invites it again), so the audit trail names its people as former members.
    const same = (s: string) =>
      s
        .replaceAll(t.tenantId, imported.tenant.id)
        .replace(/"actorName":"(?!the chat widget"|the service")[^"]*"/g, '"actorName":"a former member"');
    const paths = [
      '/intents',
      '/articles',
      '/saved-replies',
      '/conversations',
      `/conversations/${c1}`,
      `/conversations/${c2}`,
      '/tickets',
      `/tickets/${esc.body.ticketId}`,
      '/labels',
      '/nlu/examples',
      '/stats',
      `/conversations?label=Hours`,
    ];
    for (const p of paths) {
      const [a, b] = await Promise.all([call('GET', p), call('GET', p, undefined, token)]);
      expect(b.status, p).toBe(200);
      expect(b.body, p).toEqual(JSON.parse(same(a.text)));
    }
    const [sa, sb] = await Promise.all([call('GET', '/settings'), call('GET', '/settings', undefined, token)]);
    // All but the inbound email address: a slug is unique, so the new tenant has its own.
    const { email: ea, ...ca } = sa.body.config;
    const { email: eb, ...cb } = sb.body.config;
    expect(cb).toEqual(ca);
    expect(eb.inboundAddress).not.toBe(ea.inboundAddress);
    // The new widget key serves the imported conversations; the old tenant is untouched.
    expect((await send({ widgetKey: imported.widgetKey }, 'and on Sundays?', c1)).status).toBe(200);
    expect((await request('GET', chat(`/conversations/${c1}`), { widgetKey: t.widgetKey })).body.messages).toHaveLength(
      2,
    );
    // A user who already has a tenant cannot import into a second one.
    await expect(script('import-tenant', join(dir, 'tenant.jsonl'), sub)).rejects.toThrow(/already belongs/);
  }, 120_000);

  it('runs as a job through the API: 202 at once, its progress by GET, then a short-lived link to the same lines, for the owner only', async () => {
    const t = await newTenant('Exporting Shop');
    const other = await newTenant('Other Shop');
    await send(t, 'when are you open');
    await request('POST', admin('/intents'), {
      token: t.ownerToken,
      body: { name: 'opening', trainingPhrases: ['when are you open'], response: 'At nine.' },
    });

    const byScript = (await script('export-tenant', t.tenantId)).trim().split('\n');
    const started = await request('POST', admin('/tenant/export'), { token: t.ownerToken });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'queued', items: 0, url: null, finishedAt: null });
    expect(started.body.id).toMatch(/^exp_/);
    const done = await untilExported(t.ownerToken, started.body.id);
    // The script's items, and the job's own two: its item and its audit entry.
    expect(done.items).toBe(byScript.length - 1 + 2);
    expect(Date.parse(done.urlExpiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    const file = await fetch(done.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain(`tenant-${t.tenantId}.jsonl`);
    const byRoute = (await file.text()).trim().split('\n');
    // The same file, but for the header's time and the job's own items (which the script, run before, did not see).
    const header = (l: string) => {
      const { exportedAt, ...rest } = JSON.parse(l);
      return rest;
    };
    expect(header(byRoute[0]!)).toEqual(header(byScript[0]!));
    expect(byRoute).toHaveLength(done.items + 1);
    const items = (lines: string[]) =>
      lines
        .slice(1)
        .filter((l) => !l.includes(started.body.id))
        .sort();
    expect(items(byRoute)).toEqual(items(byScript));
    // Audited when requested.
    const audit = await request('GET', admin('/audit?category=settings'), { token: t.ownerToken });
    expect(audit.body.items.find((e: any) => e.action === 'tenant.exported')).toMatchObject({
      target: { type: 'tenant', id: t.tenantId },
      changes: { export: { to: started.body.id } },
    });
    // Each read signs a fresh link.
    expect(
      (await request('GET', admin(`/tenant/export/${started.body.id}`), { token: t.ownerToken })).body.url,
    ).toBeTruthy();

    // The link opens this file only: altered, or re-signed for another key, it is refused.
    const tampered = new URL(done.url);
    tampered.pathname = tampered.pathname.replace(t.tenantId, other.tenantId);
    expect((await fetch(tampered)).status).toBe(403);
    // Owners only; another tenant's owner sees neither this job nor its file.
    for (const role of ['admin', 'agent', 'viewer'] as const) {
      const token = (await memberToken(t, role)).token;
      expectProblem(await request('POST', admin('/tenant/export'), { token }), 403, 'FORBIDDEN');
      expectProblem(await request('GET', admin(`/tenant/export/${started.body.id}`), { token }), 403, 'FORBIDDEN');
    }
    expectProblem(
      await request('GET', admin(`/tenant/export/${started.body.id}`), { token: other.ownerToken }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request('GET', admin('/tenant/export/nope'), { token: t.ownerToken }), 400, 'VALIDATION_ERROR');
    const theirs = await untilExported(
      other.ownerToken,
      (await request('POST', admin('/tenant/export'), { token: other.ownerToken })).body.id,
    );
    const theirLines = (await (await fetch(theirs.url)).text()).trim().split('\n');
    expect(JSON.parse(theirLines[0]!).tenantId).toBe(other.tenantId);
    expect(theirLines.some((l) => l.includes(t.tenantId))).toBe(false);
    expect(theirs.url).not.toContain(t.tenantId);
  }, 90_000);

  it('gets a tenant of thousands of items its file, its count growing on the way', async () => {
    const t = await newTenant('Big Shop');
    // 3,000 items written straight to the table under the tenant (as its conversations' messages would be).
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      pk: `TENANT#${t.tenantId}`,
      sk: `BULK#${String(i).padStart(5, '0')}`,
      type: 'bulk',
      text: 'x'.repeat(200),
    }));
    for (let i = 0; i < rows.length; i += 25) {
      await raw.send(
        new BatchWriteCommand({
          RequestItems: { [TABLE]: rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
    const started = await request('POST', admin('/tenant/export'), { token: t.ownerToken });
    expect(started.status).toBe(202);
    const seen: number[] = [];
    const done = await untilExported(t.ownerToken, started.body.id, (job) => seen.push(job.items));
    expect(done.items).toBeGreaterThanOrEqual(3000);
    // The count only grows, up to the file's.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const lines = (await (await fetch(done.url)).text()).trim().split('\n');
    expect(lines).toHaveLength(done.items + 1);
    expect(lines.filter((l) => l.includes('"type":"bulk"'))).toHaveLength(3000);
  }, 120_000);
});
