import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryStatus } from '#shared/core/vocabulary.ts';
import { conditional, db, tableName } from './client.ts';
import { clean, keys } from './keys.ts';
import { batchGet, queryPage, type Page } from './lists.ts';
import { TTL_ATTRIBUTE } from './table.ts';

// Deliveries: one item per (event, integration), in the integration's delivery partition, listed
// newest first (ids sort by event time) and by status on gsi2. Kept 30 days by TTL. The body every
// attempt sends is an item of its own beside it, written once: the delivery item is updated twice
// per attempt and is listed on gsi2, and DynamoDB bills an update, and each index's copy, by the
// whole item's size (a 2-3 KB body made every delivery cost about 21 write units instead of 10).

export interface DeliveryItem {
  id: string;
  integrationId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  /** Attempts ever made; the retry schedule counts from `runBase` (the attempts before the last redelivery). */
  attempts: number;
  runBase: number;
  /** Bumped by a redelivery: messages of an older run are stale. */
  run: number;
  /** The queue message that owns the current run: a second message for the same run (a retried fan-out) stands aside. */
  owner?: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

/** A new delivery, with the body every attempt sends, byte for byte: `{ type, timestamp, data }`. */
export type NewDelivery = DeliveryItem & { payload: string };

export const RETENTION_SECONDS = 30 * 24 * 3600;

const fromItem = (i: Record<string, unknown>): DeliveryItem => {
  // `payload`: deliveries written before bodies had items of their own carry it inline.
  const { [TTL_ATTRIBUTE]: _ttl, payload: _payload, ...rest } = clean<DeliveryItem & Record<string, unknown>>(i);
  return rest as DeliveryItem;
};

export const deliveriesRepo = {
  /** False when the delivery exists already (the same event fanned out again). */
  async create(tenantId: string, { payload, ...d }: NewDelivery): Promise<boolean> {
    const expiresAt = Math.floor(Date.parse(d.createdAt) / 1000) + RETENTION_SECONDS;
    // The body first, so that no delivery is ever without it; a repeat is refused (one unit), not rewritten.
    await conditional(
      db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.deliveryBody(tenantId, d.integrationId, d.id),
            type: 'deliveryBody',
            payload,
            [TTL_ATTRIBUTE]: expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return (
      (await conditional(
        db.send(
          new PutCommand({
            TableName: tableName(),
            Item: {
              ...keys.delivery(tenantId, d.integrationId, d.id),
              type: 'delivery',
              ...d,
              ...keys.deliveriesByStatusIndex(tenantId, d.integrationId, d.status),
              gsi2sk: d.id,
              [TTL_ATTRIBUTE]: expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      )) !== null
    );
  },

  async get(tenantId: string, integrationId: string, id: string): Promise<DeliveryItem | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.delivery(tenantId, integrationId, id), ConsistentRead: true }),
    );
    return r.Item ? fromItem(r.Item) : null;
  },

  /** The delivery and its body in one round trip; the body is null once a customer's erasure deleted it. */
  async withBody(
    tenantId: string,
    integrationId: string,
    id: string,
  ): Promise<{ delivery: DeliveryItem; payload: string | null } | null> {
    const bodyKey = keys.deliveryBody(tenantId, integrationId, id);
    const items = await batchGet([keys.delivery(tenantId, integrationId, id), bodyKey], true);
    const item = items.find((i) => i.sk === id);
    if (!item) return null;
    const body = items.find((i) => i.sk === bodyKey.sk) ?? item;
    return { delivery: fromItem(item), payload: typeof body.payload === 'string' ? body.payload : null };
  },

  /**
   * Takes the next attempt for the queue message `owner`: only if the delivery is still pending in
   * `run`, nobody attempted since `attempts` was read, and no other message owns the run. The
   * same claim again (the SDK resends a request whose answer was lost, while the table had applied
   * it) is taken as held: refused, the message would be deleted with the delivery never sent.
   */
  async claim(tenantId: string, d: DeliveryItem, owner: string, now: string): Promise<boolean> {
    return (
      (await conditional(
        db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.delivery(tenantId, d.integrationId, d.id),
            UpdateExpression: 'SET attempts = :next, #owner = :owner, lastAttemptAt = :now',
            ConditionExpression:
              '#run = :run AND #status = :pending AND (' +
              '(attempts = :attempts AND (attribute_not_exists(#owner) OR #owner = :owner)) OR ' +
              '(attempts = :next AND #owner = :owner AND lastAttemptAt = :now))',
            ExpressionAttributeNames: { '#owner': 'owner', '#run': 'run', '#status': 'status' },
            ExpressionAttributeValues: {
              ':next': d.attempts + 1,
              ':owner': owner,
              ':now': now,
              ':run': d.run,
              ':attempts': d.attempts,
              ':pending': 'pending',
            },
          }),
        ),
      )) !== null
    );
  },

  /** Records an attempt's outcome, unless a redelivery started another run meanwhile. */
  async record(
    tenantId: string,
    d: DeliveryItem,
    outcome: Pick<DeliveryItem, 'status' | 'nextAttemptAt' | 'lastResponseStatus' | 'lastError'>,
  ): Promise<void> {
    await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.delivery(tenantId, d.integrationId, d.id),
          UpdateExpression:
            'SET #status = :status, nextAttemptAt = :next, lastResponseStatus = :code, lastError = :error, gsi2pk = :gsi2pk',
          ConditionExpression: '#run = :run',
          ExpressionAttributeNames: { '#status': 'status', '#run': 'run' },
          ExpressionAttributeValues: {
            ':status': outcome.status,
            ':next': outcome.nextAttemptAt,
            ':code': outcome.lastResponseStatus,
            ':error': outcome.lastError,
            ':gsi2pk': keys.deliveriesByStatusIndex(tenantId, d.integrationId, outcome.status).gsi2pk,
            ':run': d.run,
          },
        }),
      ),
    );
  },

  /** A new run: pending again, a fresh retry schedule, no owner until its message arrives. Null if the delivery is gone. */
  async restart(tenantId: string, d: DeliveryItem, now: string): Promise<DeliveryItem | null> {
    const r = await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.delivery(tenantId, d.integrationId, d.id),
          UpdateExpression:
            'SET #run = #run + :one, runBase = attempts, #status = :pending, nextAttemptAt = :now, gsi2pk = :gsi2pk REMOVE #owner',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#run': 'run', '#status': 'status', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':pending': 'pending',
            ':now': now,
            ':gsi2pk': keys.deliveriesByStatusIndex(tenantId, d.integrationId, 'pending').gsi2pk,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return r ? fromItem(r.Attributes!) : null;
  },

  async page(
    tenantId: string,
    integrationId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    cursor?: string,
  ): Promise<Page<DeliveryItem>> {
    const q = status
      ? {
          index: 'gsi2' as const,
          partition: { name: 'gsi2pk', value: keys.deliveriesByStatusIndex(tenantId, integrationId, status).gsi2pk },
        }
      : { partition: { name: 'pk', value: keys.delivery(tenantId, integrationId, '').pk }, skPrefix: 'dlv_' };
    const page = await queryPage(
      q,
      { tenantId, list: 'deliveries', filters: { integrationId, status } },
      limit,
      cursor,
    );
    return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
  },
};
