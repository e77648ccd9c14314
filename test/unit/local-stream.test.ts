import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import {
  attributeJson,
  deliver,
  lambdaRecord,
  readCheckpoint,
  retryFrom,
  withTimeout,
  writeCheckpoint,
} from '../../local/stream.ts';

// The stream mapping's pure parts: record shape, batch responses, batching and retries.

const rec = (seq: number): DynamoDBRecord => ({
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: String(seq).padStart(21, '0') },
});
const seqOf = (r: DynamoDBRecord) => Number(r.dynamodb!.SequenceNumber);

describe('lambdaRecord', () => {
  it('turns a Streams API record into the Lambda event record', () => {
    const r = lambdaRecord(
      {
        eventID: 'e1',
        eventName: 'INSERT',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'ddblocal',
        dynamodb: {
          ApproximateCreationDateTime: new Date('2026-11-22T10:15:30.900Z'),
          Keys: { pk: { S: 'p' } },
          NewImage: {
            pk: { S: 'p' },
            bin: { B: new Uint8Array([1, 2, 255]) },
            m: { M: { l: { L: [{ N: '1' }, { BS: [new Uint8Array([0])] }] } } },
            z: { NULL: true },
          },
          SequenceNumber: '000000000000000000042',
          SizeBytes: 30,
          StreamViewType: 'NEW_IMAGE',
        },
      },
      'eu-west-1',
      'arn:aws:dynamodb:eu-west-1:000000000000:table/t/stream/x',
    );
    expect(r).toEqual({
      eventID: 'e1',
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'eu-west-1',
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2026-11-22T10:15:30Z') / 1000,
        Keys: { pk: { S: 'p' } },
        NewImage: {
          pk: { S: 'p' },
          bin: { B: 'AQL/' },
          m: { M: { l: { L: [{ N: '1' }, { BS: ['AA=='] }] } } },
          z: { NULL: true },
        },
        SequenceNumber: '000000000000000000042',
        SizeBytes: 30,
        StreamViewType: 'NEW_IMAGE',
      },
      eventSourceARN: 'arn:aws:dynamodb:eu-west-1:000000000000:table/t/stream/x',
    });
  });

  it('keeps the TTL service identity of an expiry', () => {
    const r = lambdaRecord(
      {
        eventName: 'REMOVE',
        dynamodb: { SequenceNumber: '1' },
        userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' },
      },
      'r',
      'a',
    );
    expect(r.userIdentity).toEqual({ type: 'Service', principalId: 'dynamodb.amazonaws.com' });
  });

  it('leaves scalar attributes as they are', () => {
    expect(attributeJson({ SS: ['a', 'b'] })).toEqual({ SS: ['a', 'b'] });
    expect(attributeJson({ BOOL: false })).toEqual({ BOOL: false });
  });
});

describe('retryFrom (reading a batch response as Lambda does)', () => {
  const batch = [rec(1), rec(2), rec(3)];
  const id = (n: number) => ({ itemIdentifier: String(n).padStart(21, '0') });
  it('is success for no response, an empty one or an empty failure list', () => {
    for (const response of [undefined, null, {}, { batchItemFailures: [] }, { batchItemFailures: null }, 'ok']) {
      expect(retryFrom(batch, response)).toBe(-1);
    }
  });
  it('retries from the lowest failed sequence number', () => {
    expect(retryFrom(batch, { batchItemFailures: [id(3), id(2)] })).toBe(1);
    expect(retryFrom(batch, { batchItemFailures: [id(3)] })).toBe(2);
  });
  it('fails the whole batch on an identifier that is empty, missing, of another shape or not in the batch', () => {
    for (const failures of [
      [{ itemIdentifier: '' }],
      [{ itemIdentifier: null }],
      [{ id: id(2).itemIdentifier }],
      [id(9)],
      [id(3), id(9)],
      'x',
      [null],
    ]) {
      expect(retryFrom(batch, { batchItemFailures: failures })).toBe(0);
    }
  });
});

describe('deliver', () => {
  const run = async (
    count: number,
    batchSize: number,
    retryAttempts: number,
    respond: (batch: DynamoDBRecord[], call: number) => unknown,
  ) => {
    const calls: number[][] = [];
    const dropped: Array<{ seqs: number[]; invokeCount: number; threw: boolean }> = [];
    const checkpoints: number[] = [];
    await deliver(
      Array.from({ length: count }, (_, i) => rec(i + 1)),
      {
        batchSize,
        retryAttempts,
        invoke: async (batch) => {
          calls.push(batch.map(seqOf));
          return respond(batch, calls.length);
        },
        onFailure: (batch, invokeCount, threw) => dropped.push({ seqs: batch.map(seqOf), invokeCount, threw }),
        checkpoint: (r) => checkpoints.push(seqOf(r)),
      },
    );
    return { calls, dropped, checkpoints };
  };
  const fail = (...seqs: number[]) => ({
    batchItemFailures: seqs.map((s) => ({ itemIdentifier: String(s).padStart(21, '0') })),
  });

  it('sends batches of at most batchSize, in order', async () => {
    const { calls, dropped } = await run(5, 2, 3, () => undefined);
    expect(calls).toEqual([[1, 2], [3, 4], [5]]);
    expect(dropped).toEqual([]);
  });

  it('retries from the first failed record, reading the next batch from there', async () => {
    const { calls } = await run(5, 3, 3, (_batch, call) => (call === 1 ? fail(2, 3) : undefined));
    expect(calls).toEqual([[1, 2, 3], [2, 3, 4], [5]]);
  });

  it('bisects a thrown batch, as Lambda does with BisectBatchOnFunctionError, then goes back to full batches', async () => {
    const { calls, dropped } = await run(6, 4, 3, (_b, call) => {
      if (call === 1) throw new Error('boom');
    });
    expect(calls).toEqual([
      [1, 2, 3, 4],
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(dropped).toEqual([]);
  });

  it('bisects a failing batch down to the one record that fails, and sends only that record to the on-failure destination', async () => {
    // Record 3 always fails (a poison record), and so does any batch that starts with it or holds it whole.
    const { calls, dropped, checkpoints } = await run(8, 8, 2, (batch) => {
      const seqs = batch.map(seqOf);
      if (seqs[0] === 3) return fail(3);
      if (seqs.includes(3)) throw new Error('timed out');
      return undefined;
    });
    expect(calls).toEqual([[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4], [1, 2], [3, 4], [3], [3], [3], [4], [5, 6, 7, 8]]);
    expect(dropped).toEqual([{ seqs: [3], invokeCount: 3, threw: false }]);
    expect(checkpoints).toEqual([2, 3, 4, 8]);
  });

  it('drops a single record after retryAttempts retries and goes on with the next records', async () => {
    const { calls, dropped } = await run(3, 2, 2, (batch) =>
      batch[0]!.dynamodb!.SequenceNumber!.endsWith('1') ? fail(1) : undefined,
    );
    expect(calls).toEqual([[1, 2], [1], [1], [1], [2], [3]]);
    expect(dropped).toEqual([{ seqs: [1], invokeCount: 3, threw: false }]);
  });

  it('counts retries afresh once a retry gets further', async () => {
    // Record 1 fails twice, then record 2 fails twice: with 2 retries allowed, nothing is dropped.
    const { calls, dropped } = await run(2, 1, 2, (batch, call) =>
      call <= 2 || call === 4 || call === 5 ? fail(seqOf(batch[0]!)) : undefined,
    );
    expect(calls).toEqual([[1], [1], [1], [2], [2], [2]]);
    expect(dropped).toEqual([]);
  });

  it('checkpoints after each handled batch, after the records before a failure, and after a dropped batch; never past a record not yet handled', async () => {
    expect((await run(5, 2, 3, () => undefined)).checkpoints).toEqual([2, 4, 5]);
    expect((await run(5, 3, 3, (_b, call) => (call === 1 ? fail(2, 3) : undefined))).checkpoints).toEqual([1, 4, 5]);
    // A thrown batch moves nothing until a retry (of its halves) succeeds.
    expect(
      (
        await run(2, 10, 3, (_b, call) => {
          if (call === 1) throw new Error('boom');
        })
      ).checkpoints,
    ).toEqual([1, 2]);
    expect(
      (await run(3, 2, 2, (batch) => (batch[0]!.dynamodb!.SequenceNumber!.endsWith('1') ? fail(1) : undefined)))
        .checkpoints,
    ).toEqual([1, 2, 3]);
    // A handler that never gets past the first batch leaves no checkpoint: a restart reads it again.
    const stuck = { at: 0 };
    let stop = false;
    const checkpoints: number[] = [];
    await deliver([rec(1), rec(2)], {
      batchSize: 1,
      retryAttempts: 100,
      stopped: () => stop,
      invoke: async () => {
        if (++stuck.at === 3) stop = true;
        throw new Error('down');
      },
      onFailure: () => {},
      checkpoint: (r) => checkpoints.push(seqOf(r)),
    });
    expect(checkpoints).toEqual([]);
  });

  it("fails an invocation that outlives the function's timeout, as Lambda does", async () => {
    await expect(withTimeout(new Promise(() => {}), 50)).rejects.toThrow(/timed out/);
    await expect(withTimeout(Promise.resolve(7), 50)).resolves.toBe(7);
  });

  it('reports a thrown, exhausted batch as a function error, and no records means no call', async () => {
    const { dropped } = await run(1, 1, 0, () => {
      throw new Error('always');
    });
    expect(dropped).toEqual([{ seqs: [1], invokeCount: 1, threw: true }]);
    expect((await run(0, 5, 1, () => undefined)).calls).toEqual([]);
  });
});

describe('the stream checkpoint file (npm start -- --persist)', () => {
  const arn = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-11-27T07:00:00.000';
  const withDir = (f: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-'));
    try {
      f(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('reads back what was written for the same stream, atomically replaced', () =>
    withDir((dir) => {
      const file = join(dir, 'data', 'stream-t.json');
      expect(readCheckpoint(file, arn)).toBeNull();
      writeCheckpoint(file, {
        version: 1,
        streamArn: arn,
        shards: { a: { sequence: '000000000000000000042' }, b: { done: true } },
      });
      writeCheckpoint(file, {
        version: 1,
        streamArn: arn,
        shards: { a: { sequence: '000000000000000000043' }, b: { done: true } },
      });
      expect(readCheckpoint(file, arn)).toEqual({
        version: 1,
        streamArn: arn,
        shards: { a: { sequence: '000000000000000000043' }, b: { done: true } },
      });
      expect(existsSync(`${file}.tmp`)).toBe(false);
    }));

  it("ignores another stream's checkpoint (the table was made again), and sets an unreadable file aside", () =>
    withDir((dir) => {
      const file = join(dir, 'stream-t.json');
      writeCheckpoint(file, { version: 1, streamArn: `${arn}-old`, shards: { a: { sequence: '1' } } });
      expect(readCheckpoint(file, arn)).toBeNull();
      writeFileSync(file, '{"version":1,"streamArn":');
      const warn = console.warn;
      console.warn = () => {};
      try {
        expect(readCheckpoint(file, arn)).toBeNull();
      } finally {
        console.warn = warn;
      }
      expect(existsSync(file)).toBe(false);
      const aside = readdirSync(dir).find((f) => f.startsWith('stream-t.json.unreadable-'))!;
      expect(readFileSync(join(dir, aside), 'utf8')).toBe('{"version":1,"streamArn":');
    }));
});
