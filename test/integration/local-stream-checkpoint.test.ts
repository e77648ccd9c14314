import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startStreamReader, type StreamReader } from '../../local/stream.ts';
import { eventually } from '../support/eventually.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// The local stream reader against DynamoDB Local's real stream: with a checkpoint file
// (`npm start -- --persist`) a reader that stopped, as after kill -9, resumes after the last batch
// it handled, so what was written meanwhile is handed over; without one it starts at the end.

const dir = mkdtempSync(join(tmpdir(), 'stream-checkpoint-'));
const readers: StreamReader[] = [];
afterAll(async () => {
  for (const r of readers) await r.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the local stream reader with a checkpoint', () => {
  it("resumes after the last handled record; a reader without the file starts at the stream's end", async () => {
    const endpoint = inject('dynamodbEndpoint');
    const tableName = `checkpoint-${randomUUID().slice(0, 8)}`;
    await ensureTable(endpoint, tableName);
    const ddb = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: localDatabaseCredentials(tableName),
    });
    const put = (n: string) =>
      ddb.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { pk: { S: `P#${n}` }, sk: { S: 'X' }, type: { S: 'probe' }, n: { S: n } },
        }),
      );
    const start = async (seen: string[], checkpointFile?: string) => {
      const r = await startStreamReader({
        endpoint,
        region: 'us-east-1',
        tableName,
        pollMs: 20,
        fromStart: false,
        trigger: {
          handler: 'probe',
          filter: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['probe'] } } } },
          batchSize: 2,
          retryAttempts: 0,
        },
        invoke: async (e: DynamoDBStreamEvent) => {
          for (const rec of e.Records) seen.push(rec.dynamodb!.NewImage!.n!.S!);
        },
        ...(checkpointFile ? { checkpointFile } : {}),
      });
      readers.push(r);
      return r;
    };
    const file = join(dir, 'stream.json');

    const first: string[] = [];
    const a = await start(first, file);
    for (const n of ['1', '2', '3']) await put(n);
    await eventually(() => expect(first).toEqual(['1', '2', '3']));
    await a.stop();

    // Written while no reader runs (the process was down).
    for (const n of ['4', '5']) await put(n);

    const fresh: string[] = [];
    await start(fresh);
    const resumed: string[] = [];
    await start(resumed, file);
    await put('6');
    await eventually(() => expect(resumed).toEqual(['4', '5', '6']));
    await eventually(() => expect(fresh).toEqual(['6']));
    ddb.destroy();
  }, 60_000);
});
