import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor, ExampleTarget } from '#shared/core/vocabulary.ts';
import { db, tableName } from './client.ts';
import { clean, keys } from './keys.ts';
import { batchGet, queryAll, queryPage, type Page } from './lists.ts';
import { eventsRepo } from './events.ts';
import type { TxItem } from './tx.ts';

// Taught examples: "this message should have been answered by X". An intent's or an article's
// example lives in its target too (a training phrase, a question); a `none` example lives only here
// and the chat's model reads it, so the kinds are kept in partitions of their own, each read with a
// consistent Query. The newest-first list of all kinds is gsi1. A guard item per (target, message)
// makes the same message taught twice to the same target one example.

export type Target = { intentId: string } | { articleId: string } | { none: true };

export interface Example {
  id: string;
  message: string;
  target: Target;
  conversationId: string | null;
  messageId: string | null;
  createdBy: Actor;
  createdAt: string;
  /** The training phrase or question this example added (false: the target had it already, so taking it back removes nothing). */
  added: boolean;
}

export const MAX_NONE_EXAMPLES = 1000;

export const kindOf = (t: Target): ExampleTarget =>
  'intentId' in t ? 'intent' : 'articleId' in t ? 'article' : 'none';
const targetKey = (t: Target) =>
  'intentId' in t ? `intent:${t.intentId}` : 'articleId' in t ? `article:${t.articleId}` : 'none';

/** What makes two examples the same: the target and the message with case and spacing ignored. */
export const sameMessage = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

const KINDS: readonly ExampleTarget[] = ['intent', 'article', 'none'];
const asExample = (i: Record<string, unknown>): Example => clean<Example>(i);
/** The fields the API shows (`added` is bookkeeping). */
export const publicExample = ({ added: _added, ...shown }: Example) => shown;

/** The tenant's `none` count, guarded by the limit, and the intents version (the chat's model holds the none examples). */
const noneCount = (tenantId: string, delta: 1 | -1): TxItem => ({
  Update: {
    Key: keys.tenant(tenantId),
    UpdateExpression: 'ADD intentsVersion :one, noneExampleCount :d',
    ConditionExpression:
      delta === 1
        ? 'attribute_exists(pk) AND (attribute_not_exists(noneExampleCount) OR noneExampleCount < :max)'
        : 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':one': 1, ':d': delta, ...(delta === 1 ? { ':max': MAX_NONE_EXAMPLES } : {}) },
  },
});

export const examplesRepo = {
  /** The example of this id, whatever its kind: one BatchGet of the three places it may be. */
  async get(tenantId: string, id: string): Promise<Example | null> {
    const items = await batchGet(
      KINDS.map((k) => keys.example(tenantId, k, id)),
      true,
    );
    return items[0] ? asExample(items[0]) : null;
  },

  /** The example already taught with this message and target, if any. */
  async existing(tenantId: string, target: Target, message: string): Promise<Example | null> {
    const guard = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.exampleGuard(tenantId, targetKey(target), sameMessage(message)),
        ConsistentRead: true,
      }),
    );
    const id = guard.Item?.exampleId as string | undefined;
    if (!id) return null;
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.example(tenantId, kindOf(target), id), ConsistentRead: true }),
    );
    return r.Item ? asExample(r.Item) : null;
  },

  /** Newest first (ids are `ex_` + a ULID): one kind's partition, or all kinds on gsi1. */
  async page(
    tenantId: string,
    kind: ExampleTarget | undefined,
    limit: number,
    cursor?: string,
  ): Promise<Page<Example>> {
    const q = kind
      ? { partition: { name: 'pk', value: keys.examplePartition(tenantId, kind) } }
      : { index: 'gsi1' as const, partition: { name: 'gsi1pk', value: keys.examplesIndex(tenantId).gsi1pk } };
    const page = await queryPage(q, { tenantId, list: 'examples', filters: { target: kind } }, limit, cursor);
    return { items: page.items.map(asExample), nextCursor: page.nextCursor };
  },

  /** The messages of every `none` example (at most 1,000), read consistently: what the chat's model is built from. */
  async noneMessages(tenantId: string): Promise<string[]> {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.examplePartition(tenantId, 'none') },
      consistent: true,
    });
    return items.map((i) => i.message as string);
  },

  /** The examples taught from messages of these conversations (export and erasure): one walk of the tenant's examples on gsi1. */
  async ofConversations(tenantId: string, conversationIds: Set<string>): Promise<Example[]> {
    const items = await queryAll({
      index: 'gsi1',
      partition: { name: 'gsi1pk', value: keys.examplesIndex(tenantId).gsi1pk },
    });
    return items.map(asExample).filter((e) => e.conversationId !== null && conversationIds.has(e.conversationId));
  },

  tx: {
    /** The example and its guard (index 1 fails: taught already); a `none` example also counts (index 2 fails: the limit). */
    put(tenantId: string, e: Example): TxItem[] {
      const kind = kindOf(e.target);
      return [
        {
          Put: {
            Item: {
              ...keys.example(tenantId, kind, e.id),
              type: 'example',
              ...e,
              ...keys.examplesIndex(tenantId),
              gsi1sk: e.id,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            Item: {
              ...keys.exampleGuard(tenantId, targetKey(e.target), sameMessage(e.message)),
              type: 'exampleGuard',
              exampleId: e.id,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...(kind === 'none' ? [noneCount(tenantId, 1), eventsRepo.tx.contentChanged(tenantId, 'examples')] : []),
      ];
    },

    remove(tenantId: string, e: Example): TxItem[] {
      const kind = kindOf(e.target);
      return [
        { Delete: { Key: keys.example(tenantId, kind, e.id), ConditionExpression: 'attribute_exists(pk)' } },
        { Delete: { Key: keys.exampleGuard(tenantId, targetKey(e.target), sameMessage(e.message)) } },
        ...(kind === 'none' ? [noneCount(tenantId, -1), eventsRepo.tx.contentChanged(tenantId, 'examples')] : []),
      ];
    },
  },
};
