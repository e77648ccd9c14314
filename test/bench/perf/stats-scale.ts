import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conversationsRepo, type Conversation } from '#shared/data/conversations.ts';
import { STATS_SHARDS } from '#shared/data/stats.ts';
import { keys } from '#shared/data/keys.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Seeds a tenant with `n` conversations and the per-day stats counters they imply, written with
// BatchWriteItem in the shapes the service writes (conversationsRepo.tx.put's item,
// statsRepo.tx.addDay's day shards), through a client of its own so that the seeding never touches
// the benchmark's round-trip counter.

const DAYS = 30;
const INTENTS = ['greeting', 'order_status', 'refund', 'goodbye', 'human_agent'];

export async function seedConversations(endpoint: string, table: string, tenantId: string, n: number): Promise<number> {
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
  const perDay = new Map<string, Record<string, number>>();
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const created = new Date(now - Math.floor((i / n) * DAYS * 86_400_000) - 1000).toISOString();
    const intent = INTENTS[i % INTENTS.length]!;
    const c: Conversation = {
      id: randomUUID(),
      tenantId,
      status: i % 10 === 0 ? 'escalated' : 'active',
      createdAt: created,
      updatedAt: created,
      messageCount: 4,
      userMessageCount: 2,
      lastMessagePreview: 'where is my order?',
      lastIntent: intent,
      unclosedTickets: 0,
    };
    items.push((conversationsRepo.tx.put(c) as { Put: { Item: Record<string, unknown> } }).Put.Item);
    const day = created.slice(0, 10);
    const shard = i % STATS_SHARDS;
    const k = `${day}#${shard}`;
    const s = perDay.get(k) ?? {};
    for (const [name, v] of Object.entries({
      conversations: 1,
      messages: 2,
      escalations: i % 10 === 0 ? 1 : 0,
      fallbacks: i % 7 === 0 ? 1 : 0,
      confidenceSum: 1.5,
      [`i_${intent}`]: 2,
    })) {
      s[name] = (s[name] ?? 0) + v;
    }
    perDay.set(k, s);
  }
  for (const [k, counters] of perDay) {
    const [day, shard] = k.split('#') as [string, string];
    const key = keys.statsDay(tenantId, day);
    items.push({ pk: key.pk, sk: `${key.sk}#${shard}`, day, ...counters });
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length) {
        const r = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (r.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  client.destroy();
  return performance.now() - t0;
}
