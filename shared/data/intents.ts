import type { IntentAction } from '#shared/core/vocabulary.ts';
import type { EntitySpec } from '#shared/nlu/index.ts';
import { keyString, queryAll, readKeys } from './lists.ts';
import { clean, keys, type Key } from './keys.ts';
import { eventsRepo } from './events.ts';
import { hitAdd, hitShardKeys } from './stats.ts';
import { transact, type TxItem } from './tx.ts';

export interface Intent {
  id: string;
  name: string;
  description: string;
  trainingPhrases: string[];
  response: string;
  entities: EntitySpec[];
  action: IntentAction;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** `action: "call"` only: the tenant's `action` integration it asks, and what it says when that fails. */
  integrationId?: string;
  failureResponse?: string;
  /** Starter content the team has not edited (the team's own articles answer before it). */
  starter?: boolean;
  /** Disabled once by the starter review: its reply stated facts the team never wrote. */
  needsReview?: boolean;
}

/** The Puts that create an intent: the intent and its name guard (names are unique per tenant). */
const intentPuts = (tenantId: string, intent: Intent): TxItem[] => [
  {
    Put: {
      Item: { ...keys.intent(tenantId, intent.id), type: 'intent', ...intent },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  {
    Put: {
      Item: { ...keys.intentName(tenantId, intent.name), type: 'intentName', intentId: intent.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
];

// Intent writes of the admin API. Each is one transaction: the intent, its name guard, the tenant's
// intentsVersion (the chat functions retrain when it moves) and intentCount, and the audit entry.

export const MAX_INTENTS = 200;

/** Tenant update of an intent write; `count` +1 is conditional on the limit, so the 201st fails here. */
const tenantBump = (tenantId: string, count: 1 | 0 | -1): TxItem => ({
  Update: {
    Key: keys.tenant(tenantId),
    UpdateExpression: count === 0 ? 'ADD intentsVersion :one' : 'ADD intentsVersion :one, intentCount :c',
    ConditionExpression: count === 1 ? 'attribute_exists(pk) AND intentCount < :max' : 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':one': 1, ':c': count, ':max': MAX_INTENTS },
  },
});

const changed = (tenantId: string) => eventsRepo.tx.contentChanged(tenantId, 'intents');

export const intentsRepo = {
  /** Every intent of a tenant with its hit count (see `listReviewed`). */
  async list(tenantId: string): Promise<Array<Intent & { hitCount: number }>> {
    return (await intentsRepo.listReviewed(tenantId)).intents;
  },

  /**
   * Every intent of a tenant with its hit count, and whether the starter review ran: one Query over
   * `INTENT*` (intents, hit shards and the review mark), read consistently: the chat's model is built
   * from it and cached under the intents version read before, so a read that missed the latest write
   * would keep serving the old phrases until the next one.
   */
  async listReviewed(tenantId: string): Promise<{ intents: Array<Intent & { hitCount: number }>; reviewed: boolean }> {
    const { pk } = keys.intentPrefix(tenantId);
    const items = await queryAll({
      partition: { name: 'pk', value: pk },
      sk: { beginsWith: 'INTENT' },
      consistent: true,
    });
    const hits = new Map<string, number>();
    for (const it of items.filter((i) => (i.sk as string).startsWith(keys.intentHits(tenantId).sk))) {
      for (const [k, v] of Object.entries(it))
        if (k.startsWith('h_')) hits.set(k.slice(2), (hits.get(k.slice(2)) ?? 0) + (v as number));
    }
    const intents = items
      .filter((i) => (i.sk as string).startsWith('INTENT#'))
      .map((i) => ({ ...clean<Intent>(i), hitCount: hits.get(i.id as string) ?? 0 }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { intents, reviewed: items.some((i) => i.sk === keys.starterReview(tenantId).sk) };
  },

  /**
   * The starter review's one transaction: each changed intent (conditional on the `updatedAt` read),
   * the audit entries, the review mark (conditional: the review runs once) and the version bump.
   * Fails at index 0 when another review got there first.
   */
  async review(
    tenantId: string,
    changes: Array<{ before: Intent; after: Intent }>,
    audits: TxItem[],
    at: string,
  ): Promise<void> {
    const mark: TxItem = {
      Put: {
        Item: { ...keys.starterReview(tenantId), type: 'starterReview', reviewedAt: at },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    if (changes.length === 0) {
      await transact([mark]);
      return;
    }
    await transact([
      mark,
      ...changes.map(
        ({ before, after }): TxItem => ({
          Put: {
            Item: { ...keys.intent(tenantId, after.id), type: 'intent', ...after },
            ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
            ExpressionAttributeValues: { ':u': before.updatedAt },
          },
        }),
      ),
      ...audits,
      tenantBump(tenantId, 0),
      changed(tenantId),
    ]);
  },

  /** Fails at index 1 (name taken) or 2 (limit reached). */
  async put(tenantId: string, intent: Intent, audit: TxItem): Promise<void> {
    await transact([...intentPuts(tenantId, intent), tenantBump(tenantId, 1), audit, changed(tenantId)]);
  },

  /**
   * Full replacement, conditional on the `updatedAt` read (index 0). A rename moves the guard:
   * the old one is deleted and the new one put conditionally (index 2: name taken). `extra` items
   * (a taught example) go last.
   */
  async update(tenantId: string, before: Intent, after: Intent, audit: TxItem, extra: TxItem[] = []): Promise<void> {
    const items: TxItem[] = [
      {
        Put: {
          Item: { ...keys.intent(tenantId, after.id), type: 'intent', ...after },
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': before.updatedAt },
        },
      },
      tenantBump(tenantId, 0),
      audit,
    ];
    if (before.name !== after.name) {
      items.splice(
        2,
        0,
        {
          Put: {
            Item: { ...keys.intentName(tenantId, after.name), type: 'intentName', intentId: after.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Delete: { Key: keys.intentName(tenantId, before.name) } },
      );
    }
    await transact([...items, ...extra, changed(tenantId)]);
  },

  async remove(tenantId: string, intent: Intent, audit: TxItem): Promise<void> {
    await transact([
      {
        Delete: {
          Key: keys.intent(tenantId, intent.id),
          ConditionExpression: 'attribute_exists(pk) AND updatedAt = :u',
          ExpressionAttributeValues: { ':u': intent.updatedAt },
        },
      },
      { Delete: { Key: keys.intentName(tenantId, intent.name) } },
      tenantBump(tenantId, -1),
      audit,
      changed(tenantId),
    ]);
  },

  /** One intent with its hit count. */
  async get(tenantId: string, id: string): Promise<(Intent & { hitCount: number }) | null> {
    return (await intentsRepo.getWith(tenantId, id, [])).intent;
  },

  /**
   * One intent with its hit count, and the items at `also` (by `keyString`): the item, the hit
   * shards (a fixed set of keys) and `also` in one strongly consistent BatchGet.
   */
  async getWith(
    tenantId: string,
    id: string,
    also: Key[],
  ): Promise<{ intent: (Intent & { hitCount: number }) | null; also: Map<string, Record<string, unknown>> }> {
    const key = keys.intent(tenantId, id);
    const shardKeys = hitShardKeys(keys.intentHits(tenantId));
    const items = await readKeys([key, ...shardKeys, ...also], true);
    const item = items.get(keyString(key));
    if (!item) return { intent: null, also: items };
    const hitCount = shardKeys.reduce(
      (n, k) => n + ((items.get(keyString(k))?.[`h_${id}`] as number | undefined) ?? 0),
      0,
    );
    return { intent: { ...clean<Intent>(item), hitCount }, also: items };
  },

  tx: {
    /** The intent and its name guard, for a transaction that writes more (onboarding). */
    put: intentPuts,

    /** The starter review's mark, for a tenant that starts with today's starter content (onboarding). */
    reviewed: (tenantId: string, at: string): TxItem => ({
      Put: { Item: { ...keys.starterReview(tenantId), type: 'starterReview', reviewedAt: at } },
    }),

    /** One hit of an intent (the message's conversation picks the shard). */
    hit: (tenantId: string, intentId: string, seed: string): TxItem =>
      hitAdd(keys.intentHits(tenantId), intentId, seed),
  },
};
