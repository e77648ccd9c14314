import {
  BatchGetCommand,
  DeleteCommand,
  QueryCommand,
  type BatchGetCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { InvalidCursor } from '#shared/core/errors.ts';
import { db, tableName } from './client.ts';
import { decodeCursor, encodeCursor, type CursorScope, type PageKey } from './cursor.ts';
import { keyAttributes, type Key } from './keys.ts';
import { sleep } from './tx.ts';

// One page of a list, read with Query only: the table or one index, a key condition, optionally a
// filter. Pages are cut by us (not by DynamoDB's Limit) so that the cursor points exactly after the
// last item returned, also when a FilterExpression makes DynamoDB return fewer or more than asked.

export interface ListQuery {
  index?: 'gsi1' | 'gsi2' | 'gsi3';
  /** The partition key attribute and value to query (`pk` or `gsiNpk`). */
  partition: { name: string; value: string };
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
  /** Only the table's items whose sort key begins so (other kinds of item share the partition). */
  skPrefix?: string;
  /** Newest first unless false. */
  descending?: boolean;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const keyOf = (item: Record<string, unknown>, index: ListQuery['index']): PageKey =>
  Object.fromEntries(keyAttributes(index).map((k) => [k, item[k] as string]));

/** A DynamoDB ValidationException caused by a start key that does not fit the query. */
const badStartKey = (e: unknown) => e instanceof Error && e.name === 'ValidationException';

export async function queryPage(
  q: ListQuery,
  scope: CursorScope,
  limit: number,
  cursor: string | undefined,
): Promise<Page<Record<string, unknown>>> {
  let start: Record<string, unknown> | undefined = cursor ? decodeCursor(scope, cursor) : undefined;
  // A validly signed key must still belong to this partition (defence in depth against secret reuse).
  if (start && start[q.partition.name] !== undefined && start[q.partition.name] !== q.partition.value)
    throw new InvalidCursor();
  const items: Record<string, unknown>[] = [];
  let more = true;
  while (items.length <= limit && more) {
    const want = limit + 1 - items.length;
    const input: QueryCommandInput = {
      TableName: tableName(),
      ...(q.index ? { IndexName: q.index } : {}),
      KeyConditionExpression: q.skPrefix ? '#p = :p AND begins_with(#sk, :skPrefix)' : '#p = :p',
      ExpressionAttributeNames: { '#p': q.partition.name, ...(q.skPrefix ? { '#sk': 'sk' } : {}), ...q.filter?.names },
      ExpressionAttributeValues: {
        ':p': q.partition.value,
        ...(q.skPrefix ? { ':skPrefix': q.skPrefix } : {}),
        ...q.filter?.values,
      },
      ...(q.filter ? { FilterExpression: q.filter.expression } : {}),
      ScanIndexForward: q.descending === false,
      // With a filter, read ahead in bigger steps: Limit counts items before filtering.
      Limit: q.filter ? Math.max(want, 50) : want,
      ...(start ? { ExclusiveStartKey: start } : {}),
    };
    let r: QueryCommandOutput;
    try {
      r = await db.send(new QueryCommand(input));
    } catch (e) {
      if (start && badStartKey(e)) throw new InvalidCursor();
      throw e;
    }
    items.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
    more = start !== undefined;
  }
  if (items.length > limit) {
    const pageItems = items.slice(0, limit);
    return { items: pageItems, nextCursor: encodeCursor(scope, keyOf(pageItems[limit - 1]!, q.index)) };
  }
  return { items, nextCursor: null };
}

export interface AllQuery extends Omit<ListQuery, 'filter' | 'skPrefix'> {
  /** A condition on the table's sort key `sk`. */
  sk?: { beginsWith: string } | { between: [string, string] };
  consistent?: boolean;
}

/** Every item of a bounded partition (intents, members, a conversation, a ticket's trail), following LastEvaluatedKey. */
export async function queryAll(q: AllQuery): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const range = !q.sk
    ? null
    : 'beginsWith' in q.sk
      ? { cond: 'begins_with(#s, :a)', values: { ':a': q.sk.beginsWith } }
      : { cond: '#s BETWEEN :a AND :b', values: { ':a': q.sk.between[0], ':b': q.sk.between[1] } };
  let start: Record<string, unknown> | undefined;
  do {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        ...(q.index ? { IndexName: q.index } : {}),
        KeyConditionExpression: range ? `#p = :p AND ${range.cond}` : '#p = :p',
        ExpressionAttributeNames: { '#p': q.partition.name, ...(range ? { '#s': 'sk' } : {}) },
        ExpressionAttributeValues: { ':p': q.partition.value, ...range?.values },
        ...(q.consistent ? { ConsistentRead: true } : {}),
        ScanIndexForward: q.descending === false,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Items by key, in chunks of 100 (BatchGetItem's limit), unprocessed keys retried with backoff; in no particular order. */
export async function batchGet(keyList: Key[], consistent: boolean): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < keyList.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = keyList.slice(i, i + 100).map((k) => ({ ...k }));
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 0) await sleep(Math.min(50 * 2 ** attempt, 1000));
      const r: BatchGetCommandOutput = await db.send(
        new BatchGetCommand({
          RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: consistent } },
        }),
      );
      out.push(...(r.Responses?.[tableName()] ?? []));
      pending = r.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  return out;
}

/**
 * Deletes items by key, 25 at a time side by side; a key already gone is fine. One DeleteItem
 * each: the functions are granted no batch writes (test/infra/iam.test.ts).
 */
export async function deleteAll(keyList: Key[]): Promise<void> {
  for (let i = 0; i < keyList.length; i += 25) {
    await Promise.all(
      keyList
        .slice(i, i + 25)
        .map((k) => db.send(new DeleteCommand({ TableName: tableName(), Key: { pk: k.pk, sk: k.sk } }))),
    );
  }
}

/** The map key of an item or key in `readKeys`'s answer. */
export const keyString = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}|${String(k.sk)}`;

/**
 * Items at these keys (repeats read once), by `keyString`: one BatchGet per 100 keys, so that a
 * request's several single-item reads cost it one round trip.
 */
export async function readKeys(keyList: Key[], consistent: boolean): Promise<Map<string, Record<string, unknown>>> {
  const unique = [...new Map(keyList.map((k) => [keyString(k), k])).values()];
  return new Map((await batchGet(unique, consistent)).map((i) => [keyString({ pk: i.pk, sk: i.sk }), i]));
}
