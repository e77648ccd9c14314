import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { attributeJson, deliver, lambdaRecord, retryFrom } from '../../bin/local/stream.ts';

// The stream mapping's pure parts: record shape, batch responses, batching and retries.

const rec = (seq: number): DynamoDBRecord => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(seq).padStart(21, '0') } });
const seqOf = (r: DynamoDBRecord) => Number(r.dynamodb!.SequenceNumber);

describe('lambdaRecord', () => {
  it('turns a Streams API record into the Lambda event record', () => {
    const r = lambdaRecord({
      eventID: 'e1', eventName: 'INSERT', eventVersion: '1.1', eventSource: 'aws:dynamodb', awsRegion: 'ddblocal',
      dynamodb: {
        ApproximateCreationDateTime: new Date('2026-11-22T10:15:30.900Z'),
        Keys: { pk: { S: 'p' } },
        NewImage: { pk: { S: 'p' }, bin: { B: new Uint8Array([1, 2, 255]) }, m: { M: { l: { L: [{ N: '1' }, { BS: [new Uint8Array([0])] }] } } }, z: { NULL: true } },
        SequenceNumber: '000000000000000000042', SizeBytes: 30, StreamViewType: 'NEW_IMAGE',
      },
    }, 'eu-west-1', 'arn:aws:dynamodb:eu-west-1:000000000000:table/t/stream/x');
    expect(r).toEqual({
      eventID: 'e1', eventName: 'INSERT', eventVersion: '1.1', eventSource: 'aws:dynamodb', awsRegion: 'eu-west-1',
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2026-11-22T10:15:30Z') / 1000,
        Keys: { pk: { S: 'p' } },
        NewImage: { pk: { S: 'p' }, bin: { B: 'AQL/' }, m: { M: { l: { L: [{ N: '1' }, { BS: ['AA=='] }] } } }, z: { NULL: true } },
        SequenceNumber: '000000000000000000042', SizeBytes: 30, StreamViewType: 'NEW_IMAGE',
      },
      eventSourceARN: 'arn:aws:dynamodb:eu-west-1:000000000000:table/t/stream/x',
    });
  });

  it('keeps the TTL service identity of an expiry', () => {
    const r = lambdaRecord({ eventName: 'REMOVE', dynamodb: { SequenceNumber: '1' }, userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' } }, 'r', 'a');
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
    for (const failures of [[{ itemIdentifier: '' }], [{ itemIdentifier: null }], [{ id: id(2).itemIdentifier }], [id(9)], [id(3), id(9)], 'x', [null]]) {
      expect(retryFrom(batch, { batchItemFailures: failures })).toBe(0);
    }
  });
});

describe('deliver', () => {
  const run = async (count: number, batchSize: number, retryAttempts: number, respond: (batch: DynamoDBRecord[], call: number) => unknown) => {
    const calls: number[][] = [];
    const dropped: Array<{ seqs: number[]; invokeCount: number; threw: boolean }> = [];
    await deliver(Array.from({ length: count }, (_, i) => rec(i + 1)), {
      batchSize, retryAttempts,
      invoke: async (batch) => { calls.push(batch.map(seqOf)); return respond(batch, calls.length); },
      onFailure: (batch, invokeCount, threw) => dropped.push({ seqs: batch.map(seqOf), invokeCount, threw }),
    });
    return { calls, dropped };
  };
  const fail = (...seqs: number[]) => ({ batchItemFailures: seqs.map((s) => ({ itemIdentifier: String(s).padStart(21, '0') })) });

  it('sends batches of at most batchSize, in order', async () => {
    const { calls, dropped } = await run(5, 2, 3, () => undefined);
    expect(calls).toEqual([[1, 2], [3, 4], [5]]);
    expect(dropped).toEqual([]);
  });

  it('retries from the first failed record, reading the next batch from there', async () => {
    const { calls } = await run(5, 3, 3, (_batch, call) => (call === 1 ? fail(2, 3) : undefined));
    expect(calls).toEqual([[1, 2, 3], [2, 3, 4], [5]]);
  });

  it('retries a thrown batch whole', async () => {
    const { calls } = await run(2, 10, 3, (_b, call) => { if (call === 1) throw new Error('boom'); });
    expect(calls).toEqual([[1, 2], [1, 2]]);
  });

  it('drops the batch after retryAttempts retries and goes on with the next records', async () => {
    const { calls, dropped } = await run(3, 2, 2, (batch) => (batch[0]!.dynamodb!.SequenceNumber!.endsWith('1') ? fail(1) : undefined));
    expect(calls).toEqual([[1, 2], [1, 2], [1, 2], [3]]);
    expect(dropped).toEqual([{ seqs: [1, 2], invokeCount: 3, threw: false }]);
  });

  it('counts retries afresh once a retry gets further', async () => {
    // Record 1 fails twice, then record 2 fails twice: with 2 retries allowed, nothing is dropped.
    const { calls, dropped } = await run(2, 2, 2, (_b, call) => (call <= 2 ? fail(1) : call <= 4 ? fail(2) : undefined));
    expect(calls).toEqual([[1, 2], [1, 2], [1, 2], [2], [2]]);
    expect(dropped).toEqual([]);
  });

  it('reports a thrown, exhausted batch as a function error, and no records means no call', async () => {
    const { dropped } = await run(1, 1, 0, () => { throw new Error('always'); });
    expect(dropped).toEqual([{ seqs: [1], invokeCount: 1, threw: true }]);
    expect((await run(0, 5, 1, () => undefined)).calls).toEqual([]);
  });
});
