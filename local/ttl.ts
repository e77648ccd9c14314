import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { localDatabaseCredentials } from '#shared/core/config.ts';
import { TTL_ATTRIBUTE } from '#shared/data/table.ts';
import { startStreamReader } from './stream.ts';

// DynamoDB's Time to Live, which DynamoDB Local does not run: items whose TTL attribute (epoch
// seconds) has passed are deleted, each only if it is still expired, so the stream carries their
// REMOVE records as AWS's TTL deletions do. Which items carry a TTL is learnt from the table's own
// stream (NEW_IMAGE, read from its start: the stream keeps a day, as in AWS), never by scanning.

export interface TtlSweeper {
  /** One pass over the items known to expire; how many it deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

type Image = Record<string, AttributeValue>;

export async function startTtlSweeper(opts: {
  endpoint: string;
  region: string;
  tableName: string;
  everyMs: number;
  pollMs: number;
}): Promise<TtlSweeper> {
  const db = new DynamoDBClient({
    endpoint: opts.endpoint,
    region: opts.region,
    credentials: localDatabaseCredentials(opts.tableName),
  });
  /** Each item that carries a TTL, by its key: the key and when it expires. */
  const expiring = new Map<string, { Key: Image; at: number }>();
  const reader = await startStreamReader({
    endpoint: opts.endpoint,
    region: opts.region,
    tableName: opts.tableName,
    fromStart: true,
    pollMs: opts.pollMs,
    trigger: { handler: 'local/ttl', filter: {}, batchSize: 1000, retryAttempts: 0 },
    invoke: async (event) => {
      for (const r of event.Records) {
        const Key = r.dynamodb?.Keys as Image | undefined;
        if (!Key) continue;
        const id = JSON.stringify(Key);
        const at = Number((r.dynamodb?.NewImage as Image | undefined)?.[TTL_ATTRIBUTE]?.N);
        if (r.eventName !== 'REMOVE' && Number.isFinite(at)) expiring.set(id, { Key, at });
        else expiring.delete(id);
      }
    },
  });
  let running: Promise<number> | null = null;
  async function pass(): Promise<number> {
    // What was written before this pass has reached the reader (it reads every pollMs).
    await new Promise((r) => setTimeout(r, 3 * opts.pollMs));
    const now = Math.floor(Date.now() / 1000);
    let deleted = 0;
    for (const [id, { Key, at }] of expiring) {
      if (at >= now) continue;
      try {
        await db.send(
          new DeleteItemCommand({
            TableName: opts.tableName,
            Key,
            ConditionExpression: '#ttl < :now',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':now': { N: String(now) } },
          }),
        );
        deleted++;
      } catch (e) {
        // Gone already, or written again meanwhile (the stamp taken off, or moved on): the stream says which.
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
      expiring.delete(id);
    }
    return deleted;
  }
  const sweep = () =>
    (running ??= pass().finally(() => {
      running = null;
    }));
  const timer = setInterval(() => {
    sweep().catch(() => {});
  }, opts.everyMs);
  timer.unref();
  return {
    sweep,
    stop: async () => {
      clearInterval(timer);
      await reader.stop();
      db.destroy();
    },
  };
}
