import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetRecordsCommandOutput,
  type AttributeValue,
  type _Record as StreamsRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { localDatabaseCredentials } from '#shared/core/config.ts';
import { compileFilter } from './filter.ts';

// A DynamoDB stream event source mapping, as Lambda runs one: reads the table's stream through
// the Streams API (shards in order, a child only after its parent), keeps the records that pass
// the trigger's filter, invokes the handler with batches of at most batchSize in shard order,
// within the function's timeout, and honours partial batch responses: the batch is retried from
// its first failed record; a batch that fails whole is bisected (deliver); a single record is
// retried up to retryAttempts times, after which it goes to the on-failure destination (here: a
// log line and `failures`) and the shard moves on. `npm run replay-stream` dispatches such a
// record's range again (docs/RESTORE.md).
// With a checkpoint file (`npm start -- --persist`) it keeps its place as the event source mapping
// does: each shard's last handled sequence number, written after every batch is handled (or
// dropped), so a process killed at any point reads again at most the batch it was in (at least
// once), and a restart resumes after it instead of at the stream's end.

export interface StreamTriggerConfig {
  handler: string;
  filter: Record<string, unknown>;
  batchSize: number;
  retryAttempts: number;
  /** The function's timeout: an invocation that runs longer fails its batch (bisected, then retried); none without it. */
  functionTimeoutSeconds?: number;
}

/** What Lambda sends to an on-failure destination for a DynamoDB stream batch. */
export interface OnFailureRecord {
  requestContext: {
    requestId: string;
    functionArn: string;
    condition: 'RetryAttemptsExhausted';
    approximateInvokeCount: number;
  };
  responseContext: { statusCode: number; executedVersion: string; functionError?: string };
  version: '1.0';
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

type JsonAttribute = Record<string, unknown>;

/** Streams API attribute values in the JSON form of Lambda events (binary as base64). */
export function attributeJson(v: AttributeValue): JsonAttribute {
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  if (v.B !== undefined) return { B: b64(v.B) };
  if (v.BS !== undefined) return { BS: v.BS.map(b64) };
  if (v.M !== undefined) return { M: imageJson(v.M) };
  if (v.L !== undefined) return { L: v.L.map(attributeJson) };
  const { $unknown: _, ...rest } = v as AttributeValue & { $unknown?: unknown };
  return rest as JsonAttribute;
}

const imageJson = (image: Record<string, AttributeValue>) =>
  Object.fromEntries(Object.entries(image).map(([k, v]) => [k, attributeJson(v)]));

/** A Streams API record as the Lambda event carries it. */
export function lambdaRecord(r: StreamsRecord, region: string, streamArn: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    eventID: r.eventID,
    eventName: r.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(d.ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) }
        : {}),
      ...(d.Keys ? { Keys: imageJson(d.Keys) } : {}),
      ...(d.NewImage ? { NewImage: imageJson(d.NewImage) } : {}),
      ...(d.OldImage ? { OldImage: imageJson(d.OldImage) } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
    eventSourceARN: streamArn,
    ...(r.userIdentity ? { userIdentity: { type: r.userIdentity.Type, principalId: r.userIdentity.PrincipalId } } : {}),
  } as DynamoDBRecord;
}

const sequence = (r: DynamoDBRecord) => r.dynamodb?.SequenceNumber ?? '';

/**
 * Index of the record the batch must be retried from, -1 when it succeeded. As Lambda reads a
 * response: no response or no `batchItemFailures` (or an empty list) is success; an identifier
 * that is empty, not a string or not in the batch makes the whole batch a failure; otherwise the
 * lowest failed sequence number is where the retry starts.
 */
export function retryFrom(batch: DynamoDBRecord[], response: unknown): number {
  if (response === null || typeof response !== 'object') return -1;
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return -1;
  if (!Array.isArray(failures)) return 0;
  let first = -1;
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    const at = typeof id === 'string' && id ? batch.findIndex((r) => sequence(r) === id) : -1;
    if (at < 0) return 0;
    if (first < 0 || at < first) first = at;
  }
  return first;
}

export interface DeliverOptions {
  batchSize: number;
  retryAttempts: number;
  /** Calls the handler; a throw fails the whole batch. */
  invoke: (batch: DynamoDBRecord[]) => Promise<unknown>;
  /** Every record up to this one is handled (or dropped): where a reader resumes. */
  checkpoint?: (record: DynamoDBRecord) => void;
  /** A batch whose retries are exhausted, with how many times it was invoked. */
  onFailure: (batch: DynamoDBRecord[], invokeCount: number, handlerThrew: boolean) => void;
  stopped?: () => boolean;
}

/**
 * Delivers records (already filtered, in shard order) in batches. A retry is a new batch read
 * from the checkpoint, so records before the first failure are not sent again, and the count of
 * retries starts over when a retry gets further than the batch before it. A batch of more than one
 * record that fails whole (thrown, timed out, or its first record failed) is split in two and each
 * half tried in turn, as Lambda does with BisectBatchOnFunctionError, down to the one record that
 * fails: only that record is retried retryAttempts times and sent to the on-failure destination.
 * Past the failed batch's end, batches are batchSize again.
 */
export async function deliver(records: DynamoDBRecord[], o: DeliverOptions): Promise<void> {
  let at = 0;
  let retries = 0;
  /** Ends of the halves still to deliver, innermost last: a batch never crosses one. */
  const halves: number[] = [];
  while (at < records.length && !o.stopped?.()) {
    while (halves.length && at >= halves.at(-1)!) halves.pop();
    const batch = records.slice(at, Math.min(at + o.batchSize, halves.at(-1) ?? records.length));
    let failedAt: number;
    let threw = false;
    try {
      failedAt = retryFrom(batch, await o.invoke(batch));
    } catch (err) {
      console.error(`stream handler failed on ${batch.length} record(s) from ${sequence(batch[0]!)}`, err);
      failedAt = 0;
      threw = true;
    }
    if (failedAt < 0) {
      at += batch.length;
      retries = 0;
      o.checkpoint?.(batch.at(-1)!);
      continue;
    }
    if (failedAt > 0) {
      at += failedAt;
      retries = 0;
      o.checkpoint?.(batch[failedAt - 1]!);
      continue;
    }
    if (batch.length > 1) {
      if (halves.at(-1) !== at + batch.length) halves.push(at + batch.length);
      halves.push(at + Math.ceil(batch.length / 2));
      retries = 0;
      continue;
    }
    if (retries >= o.retryAttempts) {
      o.onFailure(batch, retries + 1, threw);
      at += batch.length;
      retries = 0;
      o.checkpoint?.(batch.at(-1)!);
      continue;
    }
    retries++;
  }
}

/** Lambda's timeout: an invocation still running after it is a function error (the work itself cannot be stopped here). */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Task timed out after ${ms / 1000} seconds`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface StreamReaderOptions {
  endpoint: string;
  region: string;
  tableName: string;
  trigger: StreamTriggerConfig;
  invoke: (event: DynamoDBStreamEvent) => Promise<unknown>;
  /** Read every shard from its start (a table this runtime created), else from now on; a checkpoint overrides both. */
  fromStart: boolean;
  pollMs: number;
  /** Keep the reader's place in this JSON file, and resume from it (`--persist`); in memory only without it. */
  checkpointFile?: string;
}

/** A reader's place: per shard of one stream, the last sequence number handled, and whether the shard is read to its end. */
export interface Checkpoint {
  version: 1;
  streamArn: string;
  shards: Record<string, { sequence?: string; done?: boolean }>;
}

/** The checkpoint in `file` if it is one for `streamArn`; null if absent, unreadable (set aside) or another stream's (a table made again). */
export function readCheckpoint(file: string, streamArn: string): Checkpoint | null {
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(file)) return null;
  let cp: Checkpoint;
  try {
    cp = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    if (cp?.version !== 1 || typeof cp.streamArn !== 'string' || typeof cp.shards !== 'object' || cp.shards === null)
      throw new Error('not a stream checkpoint of version 1');
  } catch (e) {
    const aside = `${file}.unreadable-${Date.now()}`;
    renameSync(file, aside);
    console.warn(`stream reader: ${file} could not be read (${(e as Error).message}); moved to ${aside}`);
    return null;
  }
  return cp.streamArn === streamArn ? cp : null;
}

/** Writes a checkpoint atomically (a temporary file renamed over it): a kill leaves the old one or the new one. */
export function writeCheckpoint(file: string, cp: Checkpoint): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(cp));
  renameSync(tmp, file);
}

export interface StreamReader {
  streamArn: string;
  /** Batches dropped after their retries, as an on-failure destination would receive them. */
  failures: OnFailureRecord[];
  stop(): Promise<void>;
}

interface Shard {
  id: string;
  parent?: string;
  start: 'TRIM_HORIZON' | 'LATEST';
  iterator?: string;
  lastSequence?: string;
  done: boolean;
}

const RECORDS_PER_READ = 1000;
const DESCRIBE_EVERY_MS = 1000;
const RETRY_AFTER_ERROR_MS = 1000;

export async function startStreamReader(o: StreamReaderOptions): Promise<StreamReader> {
  const credentials = localDatabaseCredentials(o.tableName);
  // Bounded calls, so a hung database delays the reader instead of stopping it for good.
  const clientConfig = {
    endpoint: o.endpoint,
    region: o.region,
    credentials,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 5000, throwOnRequestTimeout: true },
  };
  const ddb = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const abort = new AbortController();
  const call = { abortSignal: abort.signal };
  const matches = compileFilter(o.trigger.filter);
  const failures: OnFailureRecord[] = [];
  const shards = new Map<string, Shard>();
  const functionName = o.trigger.handler.replace(/\//g, '-');

  let streamArn: string | undefined;
  try {
    const table = await ddb.send(new DescribeTableCommand({ TableName: o.tableName }), call);
    streamArn = table.Table?.LatestStreamArn;
  } finally {
    ddb.destroy();
  }
  if (!streamArn) {
    streams.destroy();
    throw new Error(`table ${o.tableName} has no stream`);
  }
  const arn = streamArn;
  const resumed = o.checkpointFile ? readCheckpoint(o.checkpointFile, arn) : null;

  /** Saves every shard's place (with a checkpoint file). */
  function save() {
    if (!o.checkpointFile) return;
    writeCheckpoint(o.checkpointFile, {
      version: 1,
      streamArn: arn,
      shards: Object.fromEntries(
        [...shards.values()].map((s) => [
          s.id,
          { ...(s.lastSequence ? { sequence: s.lastSequence } : {}), ...(s.done ? { done: true } : {}) },
        ]),
      ),
    });
  }

  async function describe(initial: boolean) {
    let from: string | undefined;
    do {
      const out = await streams.send(
        new DescribeStreamCommand({ StreamArn: arn, ...(from ? { ExclusiveStartShardId: from } : {}) }),
        call,
      );
      for (const s of out.StreamDescription?.Shards ?? []) {
        const id = s.ShardId!;
        if (shards.has(id)) continue;
        const closed = s.SequenceNumberRange?.EndingSequenceNumber !== undefined;
        const parent = s.ParentShardId ? { parent: s.ParentShardId } : {};
        if (resumed) {
          // After the checkpoint's place; a shard it does not name holds only records made since
          // (or none were handled from it yet): from its start.
          const kept = resumed.shards[id];
          shards.set(id, {
            id,
            start: 'TRIM_HORIZON',
            done: kept?.done === true,
            ...(kept?.sequence ? { lastSequence: kept.sequence } : {}),
            ...parent,
          });
          continue;
        }
        // Shards that appear after the start hold only new records: they are read from their start.
        const start = initial && !o.fromStart ? 'LATEST' : 'TRIM_HORIZON';
        shards.set(id, { id, start, done: initial && !o.fromStart && closed, ...parent });
      }
      from = out.StreamDescription?.LastEvaluatedShardId;
    } while (from);
  }

  const ready = (s: Shard) => !s.done && (!s.parent || !shards.get(s.parent) || shards.get(s.parent)!.done);

  async function iterator(s: Shard) {
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: arn,
        ShardId: s.id,
        ...(s.lastSequence
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: s.lastSequence }
          : { ShardIteratorType: s.start }),
      }),
      call,
    );
    s.iterator = out.ShardIterator;
  }

  /** Reads a shard to its current end without handing anything over, so its place is the last record's sequence number. */
  async function skipToEnd(s: Shard) {
    let it = (
      await streams.send(
        new GetShardIteratorCommand({ StreamArn: arn, ShardId: s.id, ShardIteratorType: 'TRIM_HORIZON' }),
        call,
      )
    ).ShardIterator;
    for (;;) {
      if (!it) {
        s.done = true;
        break;
      }
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: RECORDS_PER_READ }), call);
      const records = out.Records ?? [];
      if (records.length > 0) s.lastSequence = records.at(-1)!.dynamodb?.SequenceNumber;
      it = out.NextShardIterator;
      if (records.length === 0) break;
    }
    s.iterator = it;
  }

  function onFailure(s: Shard, batch: DynamoDBRecord[], invokeCount: number, threw: boolean) {
    const arrival = (r: DynamoDBRecord) =>
      new Date((r.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000).toISOString();
    const record: OnFailureRecord = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:${o.region}:000000000000:function:${functionName}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: invokeCount,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        ...(threw ? { functionError: 'Unhandled' } : {}),
      },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId: s.id,
        startSequenceNumber: sequence(batch[0]!),
        endSequenceNumber: sequence(batch.at(-1)!),
        approximateArrivalOfFirstRecord: arrival(batch[0]!),
        approximateArrivalOfLastRecord: arrival(batch.at(-1)!),
        batchSize: batch.length,
        streamArn: arn,
      },
    };
    failures.push(record);
    console.error(`stream on-failure ${JSON.stringify(record)}`);
  }

  /** Reads one page of a shard and delivers it; true when more records are waiting. */
  async function read(s: Shard): Promise<boolean> {
    if (!s.iterator) await iterator(s);
    let out: GetRecordsCommandOutput;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: s.iterator!, Limit: RECORDS_PER_READ }), call);
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'ExpiredIteratorException') {
        s.iterator = undefined;
        return true;
      }
      if (name === 'TrimmedDataAccessException') {
        s.iterator = undefined;
        s.lastSequence = undefined;
        s.start = 'TRIM_HORIZON';
        return true;
      }
      throw err;
    }
    const records = out.Records ?? [];
    if (records.length > 0) {
      const events = records.map((r) => lambdaRecord(r, o.region, arn)).filter(matches);
      await deliver(events, {
        batchSize: o.trigger.batchSize,
        retryAttempts: o.trigger.retryAttempts,
        invoke: (batch) =>
          o.trigger.functionTimeoutSeconds
            ? withTimeout(o.invoke({ Records: batch }), o.trigger.functionTimeoutSeconds * 1000)
            : o.invoke({ Records: batch }),
        onFailure: (batch, count, threw) => onFailure(s, batch, count, threw),
        checkpoint: (r) => {
          s.lastSequence = sequence(r);
          save();
        },
        stopped: () => stopped,
      });
      if (stopped) return false;
      s.lastSequence = records.at(-1)!.dynamodb?.SequenceNumber;
    }
    s.iterator = out.NextShardIterator;
    if (!s.iterator) s.done = true;
    if (records.length > 0 || s.done) save();
    return records.length >= RECORDS_PER_READ || s.done;
  }

  let stopped = false;
  let failing = false;
  let lastDescribe = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function tick() {
    let again = false;
    try {
      if (Date.now() - lastDescribe >= DESCRIBE_EVERY_MS) {
        await describe(false);
        lastDescribe = Date.now();
      }
      for (const s of shards.values()) {
        if (stopped) return;
        if (ready(s)) again = (await read(s)) || again;
      }
      if (failing) console.error('stream reader: reading the stream again');
      failing = false;
    } catch (err) {
      if (stopped) return;
      if (!failing)
        console.error(
          `stream reader: cannot read the stream of ${o.tableName}, retrying every second: ${(err as Error).message}`,
        );
      failing = true;
    }
    schedule(failing ? RETRY_AFTER_ERROR_MS : again ? 0 : o.pollMs);
  }

  function schedule(ms: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick();
    }, ms);
  }

  try {
    await describe(true);
    // Iterators taken now pin "from now on" for a table that was there before.
    for (const s of shards.values()) {
      if (!ready(s)) continue;
      // A place to keep must be a sequence number: "from now on" is read as "after the last record there now".
      if (o.checkpointFile && !resumed && s.start === 'LATEST') await skipToEnd(s);
      else await iterator(s);
    }
    save();
  } catch (err) {
    streams.destroy();
    throw err;
  }
  schedule(0);

  return {
    streamArn: arn,
    failures,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      await running;
      streams.destroy();
    },
  };
}
