import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { transact, type TxItem } from './tx.ts';
import { batchGet } from './lists.ts';

// The sentence vectors of a tenant's texts (intent phrases, article titles, questions and
// passages, taught and `none` examples, unanswered messages), written by the indexer, and by the
// chat for a message it did not answer (with the message's unanswered item: it has the vector):
// - one item per distinct text in the tenant's vector partition, keyed by a hash of the text,
//   holding the int8 vector (512 bytes, binary): far under the 400 KB item limit whatever an
//   article's size, and a text shared by two articles is stored once;
// - the tenant's `vectorsVersion` and `unansweredVectorsVersion`, one of them bumped after each pass
//   that wrote or removed vectors (the indexer says which): the chat functions key their cached
//   vectors by the first, as they key the model by intentsVersion, the unanswered view by both. The
//   tenant item carries no event, so the bump starts no indexing of its own;
// - `VECSTATE`: which intents and articles are embedded as of which `updatedAt` (the dashboard's
//   "indexing" flag), and which `none` examples;
// - the starter content's vectors (the same texts for every tenant) once, in a partition of
//   their own that no tenant owns: a new tenant writes none of them.
// Items of a partition are read together: the vectors of a tenant with 1,000 articles (about
// 10,000 texts) are about 6 MB, a few Query pages, read once per vectorsVersion per container.
// Access: the whole partition (the chat's cached load and the indexer), the state item by key.

export interface VectorState {
  /** Intent or article id -> the `updatedAt` of the version whose texts all have vectors. */
  owners: Record<string, string>;
  /** A digest of the embedded `none` examples' texts (absent: none). */
  none?: string;
}

/** The tenant's attributes that version its vectors. */
export type VectorsVersion = 'vectorsVersion' | 'unansweredVectorsVersion';

/** Items per transaction (DynamoDB's limit is 100). */
const CHUNK = 100;

/** A vector partition's items, by sort key (the text hash). */
async function readPartition(pk: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  let start: Record<string, unknown> | undefined;
  do {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': pk },
        ProjectionExpression: 'sk, v',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const i of r.Items ?? []) out.set(i.sk as string, i.v as Uint8Array);
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

export const vectorsRepo = {
  /** Every stored vector of the tenant, by text hash (one Query, paged). */
  all: (tenantId: string) => readPartition(keys.vectorPartition(tenantId)),

  /** The tenant's stored vectors of these text hashes, by hash (the ones stored). */
  async some(tenantId: string, hashes: string[]): Promise<Map<string, Uint8Array>> {
    const items = await batchGet(
      hashes.map((h) => keys.vector(tenantId, h)),
      false,
    );
    return new Map(items.map((i) => [i.sk as string, i.v as Uint8Array]));
  },

  /** The starter content's vectors, by text hash. */
  shared: () => readPartition(keys.sharedVectorPartition()),

  /** Stores starter content's vectors (idempotent puts). */
  async writeShared(put: Array<[hash: string, vector: Uint8Array]>): Promise<void> {
    const items = put.map(
      ([hash, v]): TxItem => ({ Put: { Item: { ...keys.sharedVector(hash), type: 'vector', v } } }),
    );
    for (let i = 0; i < items.length; i += CHUNK) await transact(items.slice(i, i + CHUNK));
  },

  async state(tenantId: string): Promise<VectorState> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.vectorState(tenantId), ConsistentRead: true }),
    );
    return vectorsRepo.stateOf(r.Item);
  },

  /** The state item's key, for a caller that reads it in its own BatchGet (strongly), and what it holds. */
  stateKey: (tenantId: string) => keys.vectorState(tenantId),
  stateOf: (item: Record<string, unknown> | undefined): VectorState => ({
    owners: (item?.owners as Record<string, string> | undefined) ?? {},
    none: item?.none as string | undefined,
  }),

  /**
   * Writes new vectors and removes stale ones (plain puts and deletes: a retried pass writes the
   * same items again). Nothing here is conditional, so a crashed pass leaves nothing inconsistent.
   */
  async write(tenantId: string, put: Array<[hash: string, vector: Uint8Array]>, remove: string[]): Promise<void> {
    const items: TxItem[] = [
      ...put.map(([hash, v]) => vectorsRepo.tx.put(tenantId, hash, v)),
      ...remove.map((hash): TxItem => ({ Delete: { Key: keys.vector(tenantId, hash) } })),
    ];
    for (let i = 0; i < items.length; i += CHUNK) await transact(items.slice(i, i + CHUNK));
  },

  tx: {
    /** A text's vector (an idempotent put). */
    put: (tenantId: string, hash: string, v: Uint8Array): TxItem => ({
      Put: { Item: { ...keys.vector(tenantId, hash), type: 'vector', v } },
    }),
  },

  /** Records the pass's state and bumps the tenant's `version` (the tenant must still exist). */
  async commit(tenantId: string, state: VectorState, version: VectorsVersion): Promise<void> {
    await transact([
      { Put: { Item: { ...keys.vectorState(tenantId), type: 'vectorState', owners: state.owners, none: state.none } } },
      {
        Update: {
          Key: keys.tenant(tenantId),
          UpdateExpression: `ADD ${version} :one`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ]);
  },
};
