import { DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { LEGACY_STARTER_REPLIES } from '#shared/domain/starter/legacy.ts';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, chatOn, startRuntime, type Api } from './webhooks/harness.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Starter content through the API, on a table of its own (the review test takes a tenant's review
// mark away, as a tenant onboarded before it would be): no invented facts, templates with blanks,
// hours from the settings, order numbers handed over, and the one-time review.

let rt: LocalRuntime;
let a: Api;
let table: string;
beforeAll(async () => {
  rt = await startRuntime();
  a = api(rt);
  table = process.env.TABLE_NAME!;
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
type Reply = { conversationId: string; message: { content: string } | null; metadata: Record<string, any> };

describe('starter content', () => {
  it('starts a tenant with intents that state no fact, and offers the topics as templates that must be filled', async () => {
    const t = await a.tenant('Kiln Shop');
    const intents = (await a.call('GET', '/intents', t.token)).body.items as Array<{
      name: string;
      starter: boolean;
      needsReview: boolean;
      response: string;
    }>;
    expect(intents.map((i) => i.name).sort()).toEqual([
      'complaint',
      'goodbye',
      'greeting',
      'human_agent',
      'opening_hours',
      'order_status',
      'thanks',
    ]);
    expect(intents.every((i) => i.starter && !i.needsReview)).toBe(true);

    const templates = (await a.call('GET', '/intent-templates', t.token)).body.items as Array<{
      key: string;
      name: string;
      response: string;
      trainingPhrases: string[];
    }>;
    const returns = templates.find((x) => x.key === 'returns')!;
    expect(returns.response).toContain('[number of days]');
    const body = { name: returns.name, trainingPhrases: returns.trainingPhrases, response: returns.response };
    const refused = await a.call('POST', '/intents', t.token, body);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({
      path: 'response',
      message: expect.stringContaining('[number of days]'),
    });
    const made = await a.call('POST', '/intents', t.token, {
      ...body,
      response: 'Send it back within 14 days; the postage is yours to pay.',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ starter: false, needsReview: false });
    // An unknown placeholder is still refused; the settings' ones are not.
    expect(
      (await a.call('POST', '/intents', t.token, { name: 'x1', trainingPhrases: ['x'], response: 'at {{nope}}' }))
        .status,
    ).toBe(400);
    expect(
      (
        await a.call('POST', '/intents', t.token, {
          name: 'x2',
          trainingPhrases: ['write to you'],
          response: 'Write to {{contactEmail}}',
        })
      ).status,
    ).toBe(201);
  });

  it('answers the hours from the settings, or falls back while none are set', async () => {
    const t = await a.tenant('Hours Shop');
    const ask = async (message: string) => (await chatOn(rt, t.widgetKey, '/message', { message })).body as Reply;
    const before = await ask('what are your opening hours');
    expect(before.metadata.intentDetected).toBe('fallback');
    const hours = {
      timezone: 'Europe/London',
      weekly: {
        tue: [['10:00', '18:00']],
        wed: [['10:00', '18:00']],
        thu: [['10:00', '18:00']],
        fri: [['10:00', '18:00']],
        sat: [['10:00', '18:00']],
      },
    };
    expect((await a.call('PUT', '/settings', t.token, { config: { businessHours: hours } })).status).toBe(200);
    const after = await ask('what are your opening hours');
    expect(after.metadata.intentDetected).toBe('opening_hours');
    expect(after.message!.content).toMatch(
      /^Our hours are Tuesday to Saturday 10:00 to 18:00 \(Europe\/London time\)\. Right now we are (open|closed)\.$/,
    );
  });

  it('asks for the order number, then hands the conversation over with it, stating no status', async () => {
    const t = await a.tenant('Order Shop');
    const first = (await chatOn(rt, t.widgetKey, '/message', { message: 'where is my order?' })).body as Reply;
    expect(first.metadata.intentDetected).toBe('order_status');
    expect(first.metadata.ticketId).toBeUndefined();
    expect(first.message!.content).toMatch(/order number/);
    const second = (
      await chatOn(rt, t.widgetKey, '/message', { message: 'SC-10482', conversationId: first.conversationId })
    ).body as Reply;
    expect(second.metadata).toMatchObject({
      intentDetected: 'order_status',
      entitiesExtracted: { order_id: 'SC-10482' },
      ticketId: expect.stringMatching(/^tkt_/),
    });
    expect(second.message!.content).toContain('SC-10482');
    expect(second.message!.content).not.toMatch(/shipped|on its way|delivered|dispatched/i);
    const ticket = (await a.call('GET', `/tickets/${second.metadata.ticketId}`, t.token)).body.ticket;
    expect(ticket.reason).toBe('Requested in chat: SC-10482 (order_id: SC-10482)');
  });

  it("reviews an older tenant's unedited fact-stating starter intents once: disabled, audited as the system, listed for review", async () => {
    const t = await a.tenant('Old Shop');
    // As onboarded before: the sample shop's shipping reply, never edited, and no review mark.
    const legacy = {
      name: 'shipping',
      trainingPhrases: ['how much is shipping', 'shipping costs', 'how long does delivery take'],
      response: LEGACY_STARTER_REPLIES.shipping!.response,
    };
    const shipping = (await a.call('POST', '/intents', t.token, legacy)).body;
    const edited = (
      await a.call('POST', '/intents', t.token, {
        ...legacy,
        name: 'returns',
        response: 'Returns within 14 days, postage paid by you.',
      })
    ).body;
    await raw.send(
      new DeleteItemCommand({
        TableName: table,
        Key: { pk: { S: keys.starterReview(t.tenantId).pk }, sk: { S: keys.starterReview(t.tenantId).sk } },
      }),
    );

    const listed = (await a.call('GET', '/intents', t.token)).body.items as Array<{
      id: string;
      enabled: boolean;
      starter: boolean;
      needsReview: boolean;
    }>;
    expect(listed.find((i) => i.id === shipping.id)).toMatchObject({
      enabled: false,
      starter: true,
      needsReview: true,
    });
    expect(listed.find((i) => i.id === edited.id)).toMatchObject({ enabled: true, starter: false, needsReview: false });
    const audit = (await a.call('GET', '/audit?category=intent', t.token)).body.items as Array<{
      actor: { type: string };
      target: { id: string };
      changes: unknown;
    }>;
    const entries = audit.filter((e) => e.actor.type === 'system');
    expect(entries).toEqual([
      expect.objectContaining({
        target: { type: 'intent', id: shipping.id },
        changes: { enabled: { from: true, to: false } },
      }),
    ]);
    // Once: a second read changes nothing.
    await a.call('GET', '/intents', t.token);
    expect(
      (
        (await a.call('GET', '/audit?category=intent', t.token)).body.items as Array<{ actor: { type: string } }>
      ).filter((e) => e.actor.type === 'system'),
    ).toHaveLength(1);
    // The sample shop's delivery prices are told to no customer.
    const r = (await chatOn(rt, t.widgetKey, '/message', { message: 'how much is shipping' })).body as Reply;
    expect(r.message!.content).not.toContain('$4.90');
    // The team's write clears the flag.
    const fixed = await a.call('PUT', `/intents/${shipping.id}`, t.token, {
      ...legacy,
      response: 'Delivery is $49 a kiln.',
      enabled: true,
    });
    expect(fixed.body).toMatchObject({ enabled: true, starter: false, needsReview: false });
  });
});
