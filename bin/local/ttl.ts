import { ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE, tableDefinition } from '#shared/data/table.ts';

// DynamoDB's Time to Live, which DynamoDB Local does not run: items whose TTL attribute (epoch
// seconds) has passed are deleted, each only if it is still expired, so the stream carries their
// REMOVE records as AWS's TTL deletions do. A Scan is fine here: this stands in for AWS's own
// background process, never for the service.

export interface TtlSweeper {
  /** One pass over the table; how many items it deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startTtlSweeper(opts: { endpoint: string; region: string; tableName: string; everyMs: number }): TtlSweeper {
  const db = new DynamoDBClient({ endpoint: opts.endpoint, region: opts.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  let running: Promise<number> | null = null;
  async function pass(): Promise<number> {
    const now = Math.floor(Date.now() / 1000);
    let deleted = 0;
    let start: Record<string, AttributeValue> | undefined;
    do {
      const r = await db.send(new ScanCommand({
        TableName: opts.tableName, FilterExpression: '#ttl < :now',
        ProjectionExpression: `#pk, #sk`, ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, '#pk': tableDefinition.partitionKey, '#sk': tableDefinition.sortKey },
        ExpressionAttributeValues: { ':now': { N: String(now) } }, ...(start ? { ExclusiveStartKey: start } : {}),
      }));
      for (const Key of r.Items ?? []) {
        try {
          await db.send(new DeleteItemCommand({
            TableName: opts.tableName, Key, ConditionExpression: '#ttl < :now',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE }, ExpressionAttributeValues: { ':now': { N: String(now) } },
          }));
          deleted++;
        } catch (e) {
          // Written again meanwhile (the stamp taken off, or moved on): not expired any more.
          if (!(e instanceof ConditionalCheckFailedException)) throw e;
        }
      }
      start = r.LastEvaluatedKey;
    } while (start);
    return deleted;
  }
  const sweep = () => (running ??= pass().finally(() => { running = null; }));
  const timer = setInterval(() => { sweep().catch(() => {}); }, opts.everyMs);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
