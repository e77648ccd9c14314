import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { admin, chat, newTenant, request, send, type TestTenant } from './client.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// `npm run number-tickets` (bin/number-tickets.ts), the one-off that numbers the tickets made
// before ticket numbers existed, run as an operator runs it, against DynamoDB Local.

const TABLE = 'support-assistant-test';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: localDatabaseCredentials(TABLE),
});
const db = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

const run = promisify(execFile);
/** The script as `TABLE_NAME=… npm run number-tickets -- <tenantId>…` runs it. */
const numberTickets = async (...tenantIds: string[]) =>
  (
    await run(process.execPath, ['--import', 'tsx', 'bin/number-tickets.ts', ...tenantIds], {
      cwd: ROOT,
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

async function escalated(t: TestTenant, text: string): Promise<string> {
  const c = (await send(t, text)).body.conversationId as string;
  const e = await request('POST', chat('/escalate'), {
    widgetKey: t.widgetKey,
    body: { conversationId: c, reason: text },
  });
  expect(e.status).toBe(200);
  return e.body.ticketId as string;
}

/** The tenant as it was before numbering: its tickets without numbers, no lookup items, no counter. */
async function unnumber(tenantId: string, ticketIds: string[], numbers: number[]) {
  for (const id of ticketIds) {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: keys.ticket(tenantId, id),
        UpdateExpression: 'REMOVE #n',
        ExpressionAttributeNames: { '#n': 'number' },
      }),
    );
  }
  for (const n of numbers) await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.ticketNumber(tenantId, n) }));
  await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.ticketCounter(tenantId) }));
}

const numbersOf = async (t: TestTenant) => {
  const r = await request('GET', admin('/tickets?limit=100'), { token: t.ownerToken });
  return Object.fromEntries((r.body.items as { id: string; number: number | null }[]).map((x) => [x.id, x.number]));
};
const ticketItem = async (tenantId: string, id: string) =>
  (await db.send(new GetCommand({ TableName: TABLE, Key: keys.ticket(tenantId, id), ConsistentRead: true }))).Item;

describe('npm run number-tickets', () => {
  it('numbers the older tickets 1..n in creation order; a new ticket made meanwhile already follows them; running again changes nothing', async () => {
    const t = await newTenant();
    const old: string[] = [];
    for (const text of ['first problem', 'second problem', 'third problem']) old.push(await escalated(t, text));
    await unnumber(t.tenantId, old, [1, 2, 3]);
    expect(Object.values(await numbersOf(t))).toEqual([null, null, null]);

    // A ticket opened before the script runs starts the counter after the three older ones.
    const fresh = await escalated(t, 'fourth problem');
    expect((await numbersOf(t))[fresh]).toBe(4);

    expect(await numberTickets(t.tenantId)).toContain(`${t.tenantId}: numbered 3 of 4 tickets`);
    expect(await numbersOf(t)).toEqual({ [old[0]!]: 1, [old[1]!]: 2, [old[2]!]: 3, [fresh]: 4 });
    for (const [n, id] of [...old, fresh].entries()) {
      const found = await request('GET', admin(`/tickets?number=${n + 1}`), { token: t.ownerToken });
      expect(found.body.items.map((x: { id: string }) => x.id)).toEqual([id]);
    }

    // Again: nothing to do, nothing written (the items are as they were, updatedAt included).
    const before = await Promise.all(old.map((id) => ticketItem(t.tenantId, id)));
    expect(await numberTickets(t.tenantId)).toContain(`${t.tenantId}: numbered 0 of 4 tickets`);
    expect(await Promise.all(old.map((id) => ticketItem(t.tenantId, id)))).toEqual(before);
    expect(await numbersOf(t)).toEqual({ [old[0]!]: 1, [old[1]!]: 2, [old[2]!]: 3, [fresh]: 4 });

    // The next ticket takes the next number.
    const next = await escalated(t, 'fifth problem');
    expect((await numbersOf(t))[next]).toBe(5);
  });

  it('numbers each tenant given on its own, and leaves the others alone', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const ta = [await escalated(a, 'a one'), await escalated(a, 'a two')];
    const tb = [await escalated(b, 'b one')];
    await unnumber(a.tenantId, ta, [1, 2]);
    await unnumber(b.tenantId, tb, [1]);

    const out = await numberTickets(a.tenantId);
    expect(out).toContain(`${a.tenantId}: numbered 2 of 2 tickets`);
    expect(await numbersOf(a)).toEqual({ [ta[0]!]: 1, [ta[1]!]: 2 });
    expect(await numbersOf(b)).toEqual({ [tb[0]!]: null });
  });

  it('says how to use it when no tenant is given', async () => {
    await expect(numberTickets()).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('usage: npm run number-tickets -- <tenantId>'),
    });
  });
});
