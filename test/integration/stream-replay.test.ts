import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_ITEM_TYPE } from '#shared/data/events.ts';
import { eventDispatcher } from '#shared/edge/triggers.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startStreamReader, type StreamReader } from '../../local/stream.ts';
import { replayRange } from '../../bin/replay-stream.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// Against DynamoDB Local's real stream: a batch that holds a record the dispatcher cannot handle is
// bisected down to that record, which alone goes to the on-failure destination; the operator's
// script then reads that record's range from the stream again and dispatches it.

const readers: StreamReader[] = [];
afterAll(async () => {
  for (const r of readers) await r.stop();
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the on-failure record and its replay', () => {
  it('bisects to the poison record, sends only it to the on-failure destination, and the replay dispatches its range again', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const tableName = `replay-${randomUUID().slice(0, 8)}`;
    await ensureTable(endpoint, tableName);
    const ddb = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDatabaseCredentials(tableName),
    });
    const put = (n: number) =>
      ddb.send(
        new PutItemCommand({
          TableName: tableName,
          Item: {
            pk: { S: `TENANT#t#EVENTS#c${n}` },
            sk: { S: `EVT#${String(n).padStart(3, '0')}` },
            type: { S: EVENT_ITEM_TYPE },
            n: { N: String(n) },
          },
        }),
      );
    let poisoned = true;
    const handled: number[] = [];
    const batches: number[][] = [];
    const numbers = (e: DynamoDBStreamEvent) => e.Records.map((r) => Number(r.dynamodb!.NewImage!.n!.N));
    // All eight are on the stream before the reader starts (from its start), so its first read is
    // one batch that holds 5; written while it polls, a loaded machine may hand them over one by one.
    for (let n = 1; n <= 8; n++) await put(n);
    const reader = await startStreamReader({
      endpoint,
      region: 'us-east-1',
      tableName,
      pollMs: 20,
      fromStart: true,
      trigger: { ...eventDispatcher, retryAttempts: 1 },
      invoke: async (e) => {
        const ns = numbers(e);
        batches.push(ns);
        if (poisoned && ns.includes(5)) throw new Error('cannot handle event 5');
        handled.push(...ns);
        return { batchItemFailures: [] };
      },
    });
    readers.push(reader);
    await eventually(() => expect(handled.length).toBe(7));
    expect(handled.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 6, 7, 8]);
    // Bisected down to the one record: only it is on the destination.
    expect(reader.failures).toHaveLength(1);
    const failure = reader.failures[0]!;
    expect(failure.DDBStreamBatchInfo.batchSize).toBe(1);
    expect(failure.DDBStreamBatchInfo.startSequenceNumber).toBe(failure.DDBStreamBatchInfo.endSequenceNumber);
    expect(batches.some((b) => b.length > 1 && b.includes(5))).toBe(true);

    // Fixed: the operator replays the record's range.
    poisoned = false;
    const replayed: number[] = [];
    const result = await replayRange(failure, {
      region: 'us-east-1',
      endpoint,
      invoke: async (e) => {
        replayed.push(...numbers(e));
        return { batchItemFailures: [] };
      },
    });
    expect(replayed).toEqual([5]);
    expect(result).toEqual({ read: 1, dispatched: 1, failed: 0 });

    // A record that does not name a stream batch is refused, and a range the stream no longer holds is said to be gone.
    await expect(replayRange({} as never, { region: 'us-east-1', endpoint })).rejects.toThrow(
      /not an on-failure record/,
    );
    const gone = {
      ...failure,
      DDBStreamBatchInfo: {
        ...failure.DDBStreamBatchInfo,
        streamArn: `${failure.DDBStreamBatchInfo.streamArn.replace(tableName, 'no-such-table')}`,
      },
    };
    await expect(replayRange(gone, { region: 'us-east-1', endpoint, invoke: async () => ({}) })).rejects.toThrow(
      /no longer holds/,
    );

    // As the operator runs it: the script reads the record from a file (the runtime's log line as it is).
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    writeFileSync(
      join(dir, 'failure.json'),
      `stream on-failure ${JSON.stringify({ ...failure, DDBStreamBatchInfo: { ...failure.DDBStreamBatchInfo, streamArn: 'x' } })}`,
    );
    await expect(
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/replay-stream.ts', join(dir, 'failure.json')], {
        cwd: ROOT,
        env: { ...process.env, DYNAMODB_ENDPOINT: endpoint, AWS_REGION: 'us-east-1' },
      }),
    ).rejects.toThrow();
    ddb.destroy();
  }, 90_000);
});
