import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auditRepo, type AuditInput } from './audit.ts';
import type { Tenant } from './tenants.ts';
import { transact, type TxItem } from './tx.ts';
import { db, tableName } from './client.ts';
import { emailKeys, keys } from './keys.ts';
import { labelKey } from './labels.ts';
import { queryAll } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { clock } from '#shared/core/clock.ts';

// Everything one tenant holds, partition by partition (never a Scan): the tenant's own partition,
// its fixed partitions, and those found from it (a conversation's, a ticket's, an integration's
// deliveries, a label's list, a customer's email links). Short-lived items (live connections and
// tickets, limit windows, idempotency records) are left out: they expire within a day; the live
// partitions' counts are in.

const fixedPartitions = (t: string) => [
  keys.tenant(t).pk,
  keys.searchablePartition(t),
  keys.examplePartition(t, 'intent'),
  keys.examplePartition(t, 'article'),
  keys.examplePartition(t, 'none'),
  keys.unansweredPartition(t),
  keys.auditIndex(t).gsi1pk,
  keys.statsPartition(t),
  keys.labelsPartition(t),
  keys.event(t, 'x').pk,
  keys.liveMembers(t).pk,
  emailKeys.suppressedPartition(t),
  keys.vectorPartition(t),
];

/** One item by key, or nothing. */
async function* one(Key: { pk: string; sk: string }): AsyncGenerator<Record<string, unknown>> {
  const r = await db.send(new GetCommand({ TableName: tableName(), Key }));
  if (r.Item) yield r.Item;
}

const partition = (value: string) => queryAll({ partition: { name: 'pk', value }, descending: false });
const index = (value: string) => queryAll({ index: 'gsi1', partition: { name: 'gsi1pk', value }, descending: false });

/** Every item of the tenant as stored, keys included, one partition after another. */
export async function* tenantItems(
  tenantId: string,
  also: { integrationIds?: string[] } = {},
): AsyncGenerator<Record<string, unknown>> {
  const [root, ...fixed] = await Promise.all(fixedPartitions(tenantId).map(partition));
  yield* root!;
  for (const items of fixed) yield* items;
  // The email channel's lookups: the inbound address, each conversation's reply token and Message-IDs (below).
  const slug = root!.find((i) => i.type === 'tenant')?.slug as string | undefined;
  if (slug) yield* one(emailKeys.slug(slug));
  const retention = await partition(keys.retentionPartition());
  yield* retention.filter((i) => i.sk === keys.retention(tenantId).sk);
  const labels = fixed[fixedPartitions(tenantId).indexOf(keys.labelsPartition(tenantId)) - 1]!;
  for (const l of labels) yield* await partition(keys.labelledPartition(tenantId, labelKey(l.name as string)));
  const integrations = new Set([
    ...root!.filter((x) => x.type === 'integration').map((x) => x.id as string),
    ...(also.integrationIds ?? []),
  ]);
  for (const id of integrations) {
    yield* await partition(keys.delivery(tenantId, id, 'x').pk);
    yield* await partition(keys.actionCallsPartition(tenantId, id));
  }
  const emails = new Set<string>();
  for (const c of await index(keys.conversationsIndex(tenantId).gsi1pk)) {
    const held = await partition(keys.conversationPartition(tenantId, c.id as string));
    yield* held;
    const token = (c.email as { token?: string } | undefined)?.token;
    if (token) yield* one(emailKeys.replyToken(tenantId, token));
    for (const m of held) {
      const messageId = (m.email as { messageId?: string } | undefined)?.messageId;
      if (messageId) yield* one(emailKeys.thread(tenantId, messageId));
    }
    yield* await partition(keys.event(tenantId, 'x', c.id as string).pk);
    yield* await partition(keys.liveConversation(tenantId, c.id as string).pk);
    const email = (c.visitor as { email?: string | null } | undefined)?.email;
    if (email) emails.add(email);
  }
  for (const e of emails) yield* await partition(keys.customerEmailPartition(tenantId, e));
  for (const t of await index(keys.ticketsIndex(tenantId).gsi1pk))
    yield* await partition(keys.ticket(tenantId, t.id as string).pk);
}

/** The indexer's items: derived from the tenant's texts, and written by it as soon as the new tenant exists. */
const DERIVED = new Set(['vector', 'vectorState']);

/**
 * Puts an item as given, only where no item has its key (an import never overwrites), but for the
 * indexer's own items, which its pass over the new tenant may have written first.
 */
export async function putNew(item: Record<string, unknown>): Promise<void> {
  const derived = DERIVED.has(item.type as string);
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: item,
      ...(derived ? {} : { ConditionExpression: 'attribute_not_exists(pk)' }),
    }),
  );
}

export interface PurgeEntry {
  tenantId: string;
  integrationIds: string[];
  requestedAt: string;
  deleted: number;
  requestedBy: string | null;
}

/** What the user who requested a deletion reads of it; kept a day after the purge finished. */
export interface DeletionStatus {
  tenantId: string;
  tenantName: string;
  status: 'deleting' | 'deleted';
  requestedAt: string;
  deleted: number;
  finishedAt: string | null;
}
/** How long the requester may still read a finished deletion's status. */
const STATUS_KEPT_SECONDS = 86_400;

const ignoreGone = (e: unknown) => {
  if (!(e instanceof ConditionalCheckFailedException)) throw e;
};

/** Updates the requester's status item while it is about this tenant (a later deletion of theirs replaced it otherwise). */
const countOnStatus = (sub: string, tenantId: string, update: string, values: Record<string, unknown>) =>
  db
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.deletionStatus(sub),
        UpdateExpression: update,
        ConditionExpression: 'tenantId = :t',
        ...(update.includes('#') ? { ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE } } : {}),
        ExpressionAttributeValues: { ...values, ':t': tenantId },
      }),
    )
    .catch(ignoreGone);

/** A tenant's deletion: what is cut at once, and the purge job's list with its progress. */
export const tenantDeletionRepo = {
  /**
   * At once, in one transaction: the widget key's lookup goes, the tenant is marked (the chat and
   * live functions refuse it from now on, whatever a key cache holds), its integrations go (no
   * more deliveries), and it joins the purge job's list. Fails (TxConditionFailed) if marked already.
   */
  async start(
    t: Tenant,
    members: string[],
    integrationIds: string[],
    now: string,
    audit: AuditInput,
    also: TxItem[],
  ): Promise<void> {
    await transact([
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET deletingSince = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletingSince)',
          ExpressionAttributeValues: { ':now': now },
        },
      },
      { Delete: { Key: keys.widgetKey(t.widgetKeyHash) } },
      {
        Put: {
          Item: {
            ...keys.purge(t.id),
            type: 'purge',
            tenantId: t.id,
            integrationIds,
            requestedAt: now,
            deleted: 0,
            requestedBy: audit.actor.id,
          },
        },
      },
      {
        Put: {
          Item: {
            ...keys.deletionStatus(audit.actor.id),
            type: 'deletionStatus',
            tenantId: t.id,
            tenantName: t.name,
            status: 'deleting',
            requestedAt: now,
            deleted: 0,
            finishedAt: null,
          },
        },
      },
      ...integrationIds.map((id): TxItem => ({ Delete: { Key: keys.integration(t.id, id) } })),
      // Mail to the inbound and reply addresses is refused from now on (the lookup says retired).
      ...(t.slug
        ? [
            {
              Update: {
                Key: emailKeys.slug(t.slug),
                UpdateExpression: 'SET retiredAt = :now',
                ConditionExpression: 'tenantId = :t',
                ExpressionAttributeValues: { ':now': now, ':t': t.id },
              },
            } satisfies TxItem,
          ]
        : []),
      auditRepo.tx.put(t.id, { ...audit, category: 'settings', createdAt: now }),
      ...also,
    ]);
    // Members unlinked: their tokens name no tenant from now on (a user item of another tenant is left alone).
    await Promise.all(
      members.map((sub) =>
        db
          .send(
            new DeleteCommand({
              TableName: tableName(),
              Key: keys.user(sub),
              ConditionExpression: 'tenantId = :t',
              ExpressionAttributeValues: { ':t': t.id },
            }),
          )
          .catch(ignoreGone),
      ),
    );
  },

  async pending(): Promise<PurgeEntry[]> {
    const items = await queryAll({ partition: { name: 'pk', value: keys.purgePartition() }, consistent: true });
    return items.map((i) => ({
      tenantId: i.tenantId as string,
      integrationIds: i.integrationIds as string[],
      requestedAt: i.requestedAt as string,
      deleted: i.deleted as number,
      requestedBy: (i.requestedBy as string | undefined) ?? null,
    }));
  },

  async status(sub: string): Promise<DeletionStatus | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.deletionStatus(sub), ConsistentRead: true }),
    );
    if (!r.Item) return null;
    const { tenantId, tenantName, status, requestedAt, deleted, finishedAt } = r.Item as DeletionStatus;
    return { tenantId, tenantName, status, requestedAt, deleted, finishedAt };
  },

  /** Deletes items by key (gone ones are fine) and counts them on the purge item and the requester's status. */
  async remove(
    p: Pick<PurgeEntry, 'tenantId' | 'requestedBy'>,
    list: Array<{ pk: string; sk: string }>,
  ): Promise<void> {
    const { tenantId } = p;
    for (let i = 0; i < list.length; i += 25) {
      await Promise.all(
        list
          .slice(i, i + 25)
          .map((k) => db.send(new DeleteCommand({ TableName: tableName(), Key: { pk: k.pk, sk: k.sk } }))),
      );
    }
    if (list.length) {
      await db
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.purge(tenantId),
            UpdateExpression: 'ADD deleted :n',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':n': list.length },
          }),
        )
        .catch(ignoreGone);
      if (p.requestedBy) await countOnStatus(p.requestedBy, tenantId, 'ADD deleted :n', { ':n': list.length });
    }
  },

  /**
   * The last step: the tenant's registrations and its purge item; the requester's status says it is
   * done. The slug's lookup item stays, as a tombstone that names no tenant: a slug is never given again.
   */
  async finish(p: Pick<PurgeEntry, 'tenantId' | 'requestedBy'>, slug: string | null): Promise<void> {
    const { tenantId } = p;
    if (slug) {
      await db
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: emailKeys.slug(slug),
            UpdateExpression: 'SET retiredAt = if_not_exists(retiredAt, :now) REMOVE tenantId',
            ConditionExpression: 'tenantId = :t',
            ExpressionAttributeValues: { ':now': clock.iso(), ':t': tenantId },
          }),
        )
        .catch(ignoreGone);
    }
    if (p.requestedBy) {
      const now = clock.date();
      await countOnStatus(p.requestedBy, tenantId, 'SET #status = :done, finishedAt = :now, #ttl = :ttl', {
        ':done': 'deleted',
        ':now': now.toISOString(),
        ':ttl': Math.floor(now.getTime() / 1000) + STATUS_KEPT_SECONDS,
      });
    }
    await Promise.all(
      [keys.retention(tenantId), keys.tenant(tenantId), keys.purge(tenantId)].map((Key) =>
        db.send(new DeleteCommand({ TableName: tableName(), Key })),
      ),
    );
  },
};
