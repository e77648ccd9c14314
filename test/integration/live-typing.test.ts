import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { admin, memberToken, newTenant, newTicket, request, type TestTenant } from './client.ts';
import { customer, member, type Socket } from './live-client.ts';
import { eventually, present } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Typing over the live channel (docs/API.md, Typing): a socket's `{ action: "typing", conversationId }`
// reaches the other side's sockets of that conversation, relayed and stored nowhere.

const TABLE = 'support-assistant-test';
const raw = new DynamoDBClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: localDatabaseCredentials(TABLE),
});
const ddb = DynamoDBDocumentClient.from(raw);
afterAll(() => raw.destroy());

const typing = (s: Socket, conversationId: string) => s.ws.send(JSON.stringify({ action: 'typing', conversationId }));
const typings = (s: Socket) => s.frames.filter((f) => f.type === 'typing');
/** Every item of a tenant's partitions that a frame could have written (events, live state aside from connections). */
const itemsOf = async (pk: string) =>
  (
    await ddb.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/**
 * An owner's message in `conversationId`, once every socket of `on` has its frame. Frames sent to
 * the channel before it have been handled by then: its path (HTTP, the stream, then the post to the
 * sockets) is longer than a typing frame's relay. So a test waits on it, not on a clock, before it
 * asserts that something did not arrive.
 */
async function marker(t: TestTenant, conversationId: string, ...on: Socket[]) {
  const r = await request('POST', admin(`/conversations/${conversationId}/messages`), {
    token: t.ownerToken,
    body: { content: 'marker' },
  });
  expect(r.status).toBe(201);
  await eventually(() => {
    for (const s of on)
      present(
        s.frames.find((f) => f.type === 'message.created' && f.data.message.id === r.body.message.id),
        'the marker message',
      );
  });
}

describe('typing over the live channel', () => {
  it("reaches the other side of the conversation only, with the agent's name, and writes nothing", async () => {
    const t = await newTenant('Typing Shop');
    const other = await newTenant('Other Shop');
    const [agent, viewer] = await Promise.all([memberToken(t, 'agent'), memberToken(t, 'viewer')]);
    expect(
      (await request('PATCH', admin('/auth/me'), { token: agent.token, body: { displayName: 'Sam' } })).status,
    ).toBe(200);
    const [a, b] = await Promise.all([newTicket(t), newTicket(t)]);
    const [ca, cb, m, v, stranger] = await Promise.all([
      customer(t, a.conversationId),
      customer(t, b.conversationId),
      member(agent.token),
      member(viewer.token),
      member(other.ownerToken),
    ]);
    const eventsBefore = await itemsOf(`TENANT#${t.tenantId}#EVENTS#${a.conversationId}`);
    const convBefore = await itemsOf(`TENANT#${t.tenantId}#CONV#${a.conversationId}`);

    // The customer types: the tenant's members see it, no name; nobody else does.
    typing(ca, a.conversationId);
    const seen = await eventually(() => present(typings(m)[0], 'customer typing on the agent socket'));
    expect(seen).toEqual({ type: 'typing', data: { conversationId: a.conversationId, role: 'user' } });
    await eventually(() => present(typings(v)[0], 'customer typing on the viewer socket'));
    // The agent types: that conversation's customer sees the agent's display name.
    typing(m, a.conversationId);
    const toCustomer = await eventually(() => present(typings(ca)[0], 'agent typing on the customer socket'));
    expect(toCustomer.data).toEqual({ conversationId: a.conversationId, role: 'agent', name: 'Sam' });
    expect(toCustomer).not.toHaveProperty('tenantId');
    // A message in the other conversation (this one's items are compared below).
    await marker(t, b.conversationId, cb, m, v);
    expect(typings(cb)).toEqual([]);
    expect(typings(stranger)).toEqual([]);
    expect(typings(m)).toHaveLength(1);
    expect(typings(ca)).toHaveLength(1);

    // Nothing stored per frame: the conversation and its events are as they were.
    expect(await itemsOf(`TENANT#${t.tenantId}#EVENTS#${a.conversationId}`)).toEqual(eventsBefore);
    expect(await itemsOf(`TENANT#${t.tenantId}#CONV#${a.conversationId}`)).toEqual(convBefore);

    // A viewer writes to no customer: their typing goes nowhere. A member of another tenant neither.
    typing(v, a.conversationId);
    typing(stranger, a.conversationId);
    // A customer signals only its own conversation.
    typing(cb, a.conversationId);
    await marker(t, a.conversationId, ca, m);
    expect(typings(ca)).toHaveLength(1);
    expect(typings(m)).toHaveLength(1);
    for (const s of [ca, cb, m, v, stranger]) s.ws.close();
  });

  it('relays at most one frame per socket every couple of seconds, and ignores frames it does not know', async () => {
    const t = await newTenant('Typing Burst');
    const { conversationId } = await newTicket(t);
    const [c, m] = await Promise.all([customer(t, conversationId), member(t.ownerToken)]);
    // A burst of keystrokes sent without throttling: one frame gets through.
    for (let i = 0; i < 8; i++) typing(c, conversationId);
    await eventually(() => present(typings(m)[0], 'one typing frame'));
    await marker(t, conversationId, m);
    expect(typings(m)).toHaveLength(1);
    // After the interval, the next one does: the client keeps signalling while its person types.
    await eventually(
      () => {
        if (!typings(m)[1]) typing(c, conversationId);
        return present(typings(m)[1], 'a second typing frame');
      },
      { interval: 250 },
    );

    // Frames of no known action, bad JSON or a bad conversation id change nothing and close nothing.
    c.ws.send('not json');
    c.ws.send(JSON.stringify({ action: 'dance' }));
    c.ws.send(JSON.stringify({ action: 'typing', conversationId: 'nope' }));
    await marker(t, conversationId, m);
    expect(typings(m)).toHaveLength(2);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    // The channel still carries events.
    const r = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'Still here' },
    });
    await eventually(() =>
      present(
        c.frames.find((f) => f.type === 'message.created' && f.data.message.id === r.body.message.id),
        'the reply on the customer socket',
      ),
    );
    c.ws.close();
    m.ws.close();
  });
});
