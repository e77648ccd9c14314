import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { eventDispatcher } from '#shared/edge/triggers.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';
import { compileFilter } from '../local/filter.ts';
import { deliver, lambdaRecord, type OnFailureRecord } from '../local/stream.ts';

// `npm run replay-stream -- <on-failure.json>`: dispatches again the stream records of a batch that
// went to the event dispatcher's on-failure destination (the message body of its dead-letter
// queue, or the local runtime's `stream on-failure {...}` line): reads the shard from the batch's
// first sequence number to its last, keeps the records the trigger's filter keeps, and hands them
// to the dispatcher (functions/events/dispatch.ts, in this process, with this process's
// environment: see docs/RESTORE.md) in batches, bisected and retried as the event source mapping
// does. Events have stable ids and their consumers take repeats, so a record dispatched twice is
// harmless. The stream keeps records 24 hours: after that they are gone, and this says so.

export interface ReplayOptions {
  region: string;
  /** DynamoDB Local's endpoint; AWS's regional one without it. */
  endpoint?: string;
  /** Hands a batch to the dispatcher (default: its handler module, in this process). */
  invoke?: (event: DynamoDBStreamEvent) => Promise<unknown>;
}

export interface ReplayResult {
  read: number;
  dispatched: number;
  failed: number;
}

const big = (s: string) => BigInt(s);

/** Re-reads `record`'s range from the stream and dispatches it again. */
export async function replayRange(record: OnFailureRecord, o: ReplayOptions): Promise<ReplayResult> {
  const info = record.DDBStreamBatchInfo;
  if (!info?.streamArn || !info.shardId || !info.startSequenceNumber || !info.endSequenceNumber) {
    throw new Error('not an on-failure record of a DynamoDB stream batch (DDBStreamBatchInfo is missing a field)');
  }
  const streams = new DynamoDBStreamsClient({
    region: o.region,
    maxAttempts: 5,
    // The stream's ARN names its table (`…:table/<name>/stream/…`), whose DynamoDB Local database it is.
    ...(o.endpoint
      ? { endpoint: o.endpoint, credentials: localDatabaseCredentials(info.streamArn.split('/')[1] ?? '') }
      : {}),
  });
  const invoke = o.invoke ?? (await dispatcherHandler());
  const matches = compileFilter(eventDispatcher.filter);
  const end = big(info.endSequenceNumber);
  const records: DynamoDBRecord[] = [];
  let read = 0;
  try {
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: info.streamArn,
          ShardId: info.shardId,
          ShardIteratorType: 'AT_SEQUENCE_NUMBER',
          SequenceNumber: info.startSequenceNumber,
        }),
      )
    ).ShardIterator;
    let past = false;
    let empty = 0;
    while (iterator && !past) {
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of out.Records ?? []) {
        if (big(r.dynamodb!.SequenceNumber!) > end) {
          past = true;
          break;
        }
        read++;
        const l = lambdaRecord(r, o.region, info.streamArn);
        if (matches(l)) records.push(l);
      }
      // An open shard answers empty pages at its end (and, in AWS, now and then before it): a few in a row end the reading.
      empty = (out.Records ?? []).length === 0 ? empty + 1 : 0;
      if (empty >= 5) break;
      iterator = out.NextShardIterator;
    }
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'TrimmedDataAccessException' || name === 'ResourceNotFoundException') {
      throw new Error(
        `the stream no longer holds this range (${name}): records are kept 24 hours; restore from a backup instead (docs/RESTORE.md)`,
      );
    }
    throw e;
  } finally {
    streams.destroy();
  }
  let failed = 0;
  await deliver(records, {
    batchSize: eventDispatcher.batchSize,
    retryAttempts: eventDispatcher.retryAttempts,
    invoke: (batch) => invoke({ Records: batch }),
    onFailure: (batch) => {
      failed += batch.length;
      console.error(`replay: ${batch.length} record(s) failed again from ${batch[0]!.dynamodb!.SequenceNumber}`);
    },
  });
  return { read, dispatched: records.length - failed, failed };
}

async function dispatcherHandler() {
  const { handler } = (await import('#functions/events/dispatch.ts')) as {
    handler: (e: DynamoDBStreamEvent, c: unknown) => Promise<unknown>;
  };
  const context = {
    getRemainingTimeInMillis: () => eventDispatcher.functionTimeoutSeconds * 1000,
    functionName: 'replay-stream',
  };
  return (e: DynamoDBStreamEvent) => handler(e, context);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file] = process.argv.slice(2);
  if (!file) {
    console.error(
      "usage: npm run replay-stream -- <on-failure.json>   (the on-failure record: a message body of the dispatcher's dead-letter queue)",
    );
    process.exit(2);
  }
  const text = readFileSync(file === '-' ? 0 : file, 'utf8').trim();
  // The local runtime's log line carries the record after its prefix.
  const record = JSON.parse(text.slice(text.indexOf('{'))) as OnFailureRecord;
  const result = await replayRange(record, {
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}),
  });
  console.log(JSON.stringify(result));
  process.exit(result.failed > 0 ? 1 : 0);
}
