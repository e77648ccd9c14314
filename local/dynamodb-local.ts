import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { localDatabaseCredentials } from '#shared/core/config.ts';
import { createTableInput, TTL_ATTRIBUTE } from '#shared/data/table.ts';

// DynamoDB Local, the official emulator, from the jar that the npm package amplify-dynamodb-simulator ships.

const require = createRequire(import.meta.url);
const emulatorDir = () => join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export interface DynamoLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startDynamoLocal(opts: { port?: number; dataDir?: string } = {}): Promise<DynamoLocal> {
  const port = opts.port ?? (await freePort());
  const dir = emulatorDir();
  // Absolute: Java runs in the emulator's folder, where a relative path (`.local-data`) is not ours.
  const dataDir = opts.dataDir === undefined ? undefined : resolve(opts.dataDir);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const storage = dataDir ? ['-sharedDb', '-dbPath', dataDir] : ['-inMemory'];
  const proc = spawn(
    'java',
    [
      '-Xms256m',
      '-Xmx1g',
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-disableTelemetry',
      ...storage,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // However the parent ends (Ctrl-C, a test runner's teardown or exit), Java goes with it.
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  proc.once('exit', () => process.removeListener('exit', killOnExit));
  let output = '';
  proc.stdout?.on('data', (d) => {
    output += d;
  });
  proc.stderr?.on('data', (d) => {
    output += d;
  });
  const spawnError = new Promise<never>((_, reject) =>
    proc.once('error', (e) =>
      reject(
        new Error(
          `could not start Java for DynamoDB Local (${e.message}); install a Java 17 runtime, e.g. apt-get install -y openjdk-17-jre-headless`,
        ),
      ),
    ),
  );
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`DynamoDB Local exited with ${code}: ${output}`))),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const ready = (async () => {
    for (let i = 0; i < 300; i++) {
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${output}`);
  })();
  await Promise.race([ready, spawnError, exited]);
  client.destroy();
  return {
    endpoint,
    port,
    process: proc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/**
 * Creates the table from the same definition as the CDK stack, if it is not there yet, and
 * turns its stream on if a table kept from an older run has none. True when it created the table.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localDatabaseCredentials(tableName),
  });
  const input = createTableInput(tableName);
  try {
    let table: TableDescription | undefined;
    try {
      table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    } catch (err) {
      if ((err as Error).name !== 'ResourceNotFoundException') throw err;
    }
    if (table) {
      if (!table.StreamSpecification?.StreamEnabled) {
        await client.send(
          new UpdateTableCommand({ TableName: tableName, StreamSpecification: input.StreamSpecification }),
        );
      }
      return false;
    }
    await client.send(new CreateTableCommand(input));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
    return true;
  } finally {
    client.destroy();
  }
}
