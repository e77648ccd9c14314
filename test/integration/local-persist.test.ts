import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, startDynamoLocal, type DynamoLocal } from '../../local/dynamodb-local.ts';
import { localDatabaseCredentials } from '#shared/core/config.ts';

// `npm start -- --persist` keeps its data in `.local-data`, a path relative to where it runs; DynamoDB
// Local runs in its own folder, so it must be handed the path resolved.

const dir = mkdtempSync(join(tmpdir(), 'persist-'));
const dataDir = relative(process.cwd(), dir);
let dynamo: DynamoLocal | undefined;
afterAll(async () => {
  await dynamo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const client = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    // -sharedDb: one database whatever the key; the table's own key all the same.
    credentials: localDatabaseCredentials('persist'),
  });

describe('DynamoDB Local with a relative data folder', () => {
  it('starts, and keeps what was written across a restart', async () => {
    expect(dataDir.startsWith('/')).toBe(false);
    const TableName = 'persist';
    dynamo = await startDynamoLocal({ dataDir });
    await ensureTable(dynamo.endpoint, TableName);
    const first = client(dynamo.endpoint);
    await first.send(new PutItemCommand({ TableName, Item: { pk: { S: 'kept' }, sk: { S: 'ITEM' }, n: { N: '1' } } }));
    first.destroy();
    await dynamo.stop();

    dynamo = await startDynamoLocal({ dataDir });
    const second = client(dynamo.endpoint);
    const got = await second.send(new GetItemCommand({ TableName, Key: { pk: { S: 'kept' }, sk: { S: 'ITEM' } } }));
    second.destroy();
    expect(got.Item?.n).toEqual({ N: '1' });
  }, 90_000);
});
