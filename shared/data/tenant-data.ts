import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { labelKey } from './labels.ts';
import { queryAll } from './lists.ts';

// Everything one tenant holds, partition by partition (never a Scan): the tenant's own partition,
// its fixed partitions, and those found from it (a conversation's, a ticket's, an integration's
// deliveries, a label's list, a customer's email links). Short-lived items (live connections and
// tickets, limit windows, idempotency records) are left out: they expire within a day.

const fixedPartitions = (t: string) => [
  keys.tenant(t).pk, keys.searchablePartition(t), keys.examplePartition(t, 'intent'), keys.examplePartition(t, 'article'),
  keys.examplePartition(t, 'none'), keys.unansweredPartition(t), keys.auditIndex(t).gsi1pk, keys.statsPartition(t),
  keys.labelsPartition(t), keys.event(t, 'x').pk,
];

const partition = (value: string) => queryAll({ partition: { name: 'pk', value }, descending: false });
const index = (value: string) => queryAll({ index: 'gsi1', partition: { name: 'gsi1pk', value }, descending: false });

/** Every item of the tenant as stored, keys included, one partition after another. */
export async function* tenantItems(tenantId: string): AsyncGenerator<Record<string, unknown>> {
  const [root, ...fixed] = await Promise.all(fixedPartitions(tenantId).map(partition));
  yield* root!;
  for (const items of fixed) yield* items;
  const retention = await partition(keys.retentionPartition());
  yield* retention.filter((i) => i.sk === keys.retention(tenantId).sk);
  const labels = fixed[fixedPartitions(tenantId).indexOf(keys.labelsPartition(tenantId)) - 1]!;
  for (const l of labels) yield* await partition(keys.labelledPartition(tenantId, labelKey(l.name as string)));
  for (const i of root!.filter((x) => x.type === 'integration')) yield* await partition(keys.delivery(tenantId, i.id as string, 'x').pk);
  const emails = new Set<string>();
  for (const c of await index(keys.conversationsIndex(tenantId).gsi1pk)) {
    yield* await partition(keys.conversationPartition(tenantId, c.id as string));
    yield* await partition(keys.event(tenantId, 'x', c.id as string).pk);
    const email = (c.visitor as { email?: string | null } | undefined)?.email;
    if (email) emails.add(email);
  }
  for (const e of emails) yield* await partition(keys.customerEmailPartition(tenantId, e));
  for (const t of await index(keys.ticketsIndex(tenantId).gsi1pk)) yield* await partition(keys.ticket(tenantId, t.id as string).pk);
}

/** Puts an item as given, only where no item has its key (an import never overwrites). */
export async function putNew(item: Record<string, unknown>): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
}
