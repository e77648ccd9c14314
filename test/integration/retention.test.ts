import { DynamoDBClient, ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, startRuntime, type Api, chatOn } from './webhooks/harness.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Retention through the API and the local runtime's schedule and TTL sweeper, on a table of its own:
// conversations idle past the tenant's retention go with their messages and closed tickets; open
// tickets and their conversations stay; the KPIs of past days do not move.

let rt: LocalRuntime;
let a: Api;
let table: string;
beforeAll(async () => {
  rt = await startRuntime();
  table = process.env.TABLE_NAME!;
  a = api(rt);
}, 60_000);
afterAll(async () => {
  await rt?.stop();
});

const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  // The table is this file's runtime's, known once it started.
  credentials: async () => localDatabaseCredentials(table),
});
const chat = (widgetKey: string, path: string, body: unknown) => chatOn(rt, widgetKey, path, body);

/** Makes a conversation look `days` old, as if created and last active then (the index entry too). */
async function age(tenantId: string, conversationId: string, days: number) {
  const at = new Date(Date.now() - days * 86_400_000).toISOString();
  await raw.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: { S: keys.conversation(tenantId, conversationId).pk }, sk: { S: 'CONV' } },
      UpdateExpression: 'SET createdAt = :t, updatedAt = :t, gsi1sk = :s',
      ExpressionAttributeValues: { ':t': { S: at }, ':s': { S: `${at}#${conversationId}` } },
    }),
  );
}

async function partitionsLeft(prefixes: string[]): Promise<string[]> {
  const found: string[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const r = await raw.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const i of r.Items ?? []) {
      const { pk, sk } = unmarshall(i);
      if (prefixes.some((p) => pk.startsWith(p))) found.push(`${pk} ${sk}`);
    }
    start = r.LastEvaluatedKey;
  } while (start);
  return found;
}

describe('retention', () => {
  it('validates the setting, removes idle conversations with their closed tickets, keeps open tickets, activity and past KPIs', async () => {
    const t = await a.tenant('Retention Shop');
    for (const bad of [29, 3651, 30.5, '30']) {
      const r = await a.call('PUT', '/settings', t.token, { config: { retention: { conversationDays: bad } } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].path).toBe('config.retention.conversationDays');
    }
    expect(
      (await a.call('PUT', '/settings', t.token, { config: { retention: { conversationDays: 30 } } })).status,
    ).toBe(200);

    const open = async (text: string) =>
      (await chat(t.widgetKey, '/message', { message: text })).body.conversationId as string;
    const old = await open('old and done');
    const closedTicket = (await chat(t.widgetKey, '/escalate', { conversationId: old, reason: 'done long ago' })).body
      .ticketId as string;
    expect((await a.call('PATCH', `/tickets/${closedTicket}`, t.token, { status: 'closed' })).status).toBe(200);
    const oldOpen = await open('old but waiting');
    const openTicket = (await chat(t.widgetKey, '/escalate', { conversationId: oldOpen, reason: 'still waiting' })).body
      .ticketId as string;
    const revived = await open('old, then back');
    const recent = await open('new');
    const kpis = async () => (await a.call('GET', '/stats', t.token)).body.kpis;

    for (const c of [old, oldOpen, revived]) await age(t.tenantId, c, 40);
    expect(await rt.runJob('jobs/retention')).toEqual({ tenants: 1, stamped: 2 });
    // The customer comes back before the deletion: the conversation stays, its old items go.
    expect((await chat(t.widgetKey, '/message', { message: 'me again', conversationId: revived })).status).toBe(200);
    const before = await kpis();
    expect(await rt.sweepExpired()).toBeGreaterThan(0);

    expect((await a.call('GET', `/conversations/${old}`, t.token)).status).toBe(404);
    expect((await a.call('GET', `/tickets/${closedTicket}`, t.token)).status).toBe(404);
    expect(
      await partitionsLeft([keys.conversationPartition(t.tenantId, old), keys.ticket(t.tenantId, closedTicket).pk]),
    ).toEqual([]);
    expect(
      (await a.call('GET', `/conversations/${oldOpen}`, t.token)).body.messages.map((m: any) => m.content),
    ).toContain('old but waiting');
    expect((await a.call('GET', `/tickets/${openTicket}`, t.token)).status).toBe(200);
    expect((await a.call('GET', `/conversations/${recent}`, t.token)).status).toBe(200);
    const back = await a.call('GET', `/conversations/${revived}`, t.token);
    expect(back.status).toBe(200);
    expect(back.body.messages.map((m: any) => m.content)).not.toContain('old, then back');
    expect(back.body.messages.map((m: any) => m.content)).toContain('me again');
    // The per-day counters carry no TTL: the period's KPIs are what they were.
    expect(await kpis()).toEqual(before);
    // Nothing left to do on a second run; unset keeps everything.
    expect(await rt.runJob('jobs/retention')).toEqual({ tenants: 1, stamped: 0 });
    expect((await a.call('PUT', '/settings', t.token, { config: { retention: null } })).status).toBe(200);
    expect(await rt.runJob('jobs/retention')).toEqual({ tenants: 0, stamped: 0 });
  }, 60_000);
});
