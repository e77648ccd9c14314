import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundTrips } from '#shared/data/client.ts';
import { unansweredRepo } from '#shared/data/unanswered.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { lambdaContext, v2Event } from '../../../local/events.ts';
import { percentile } from './util.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// GET /admin/nlu/unanswered for a tenant with 100,000 customer messages in 30 days, a fifth of them
// unanswered (20,000 items, the shape the chat's transaction writes, seeded with BatchWriteItem
// through a client of its own so the seeding never counts as the route's round trips). The request
// reads the newest 2,000 of them (its cap), groups them and suggests an intent or article per group.

const DAYS = 30;
const TOPICS = [
  'can I pay with klarna',
  'do you ship to norway',
  'is there a store in leeds',
  'gift wrapping for birthday',
  'student discount code',
  'price match with amazon',
  'size guide for boots',
  'how do I become a reseller',
  'can I collect in store today',
  'warranty on the kettle',
];
const WORDS = ['please', 'today', 'still', 'again', 'now', 'really', 'for my order', 'urgent', 'quick question', 'hi'];

export async function seedUnanswered(
  endpoint: string,
  table: string,
  tenantId: string,
  messages: number,
  share: number,
) {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDatabaseCredentials(table),
      maxAttempts: 10,
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const t0 = performance.now();
  const now = Date.now();
  const n = Math.round(messages * share);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = new Date(now - Math.floor((i / n) * DAYS * 86_400_000) - 1000).toISOString();
    // Topics of uneven size (a few big groups, a long tail), in the words of different customers.
    const topic =
      i % 3 === 0
        ? `question number ${i} about something rare`
        : `${TOPICS[Math.floor(Math.sqrt(i % 100))]!} ${WORDS[i % WORDS.length]}`;
    items.push(
      unansweredRepo.item(tenantId, {
        message: topic,
        confidence: (i % 50) / 100,
        conversationId: randomUUID(),
        messageId: randomUUID(),
        createdAt,
        reasons: ['fallback'],
      }),
    );
  }
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const batch = items.slice(next, next + 25);
      next += 25;
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length) {
        const r = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (r.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  client.destroy();
  return { items: n, seedMs: performance.now() - t0 };
}

/** The handler invoked in process with real v2 events: latency and round trips per request. */
export async function benchUnanswered(
  root: string,
  claims: Record<string, string>,
  warmup: number,
  iterations: number,
) {
  const route = routes.find((r) => r.handler === 'admin/list-unanswered')!;
  const { handler } = (await import(pathToFileURL(join(root, 'functions', 'admin', 'list-unanswered.ts')).href)) as {
    handler: (e: unknown, c: unknown) => Promise<{ statusCode?: number; body?: string }>;
  };
  const times: number[] = [];
  const trips: number[] = [];
  let groups = 0;
  let counted = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const rt0 = roundTrips.count;
    const t0 = performance.now();
    const res = await handler(v2Event({ route, claims }), lambdaContext(route));
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`/nlu/unanswered ${res.statusCode} ${res.body}`);
    if (i === 0) {
      const body = JSON.parse(res.body!) as { groups: Array<{ count: number }> };
      groups = body.groups.length;
      counted = body.groups.reduce((n, g) => n + g.count, 0);
    }
    if (i >= warmup) {
      times.push(ms);
      trips.push(roundTrips.count - rt0);
    }
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), roundTrips: Math.max(...trips), groups, counted };
}
