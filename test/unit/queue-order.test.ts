import { describe, expect, it } from 'vitest';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AttemptOutcome, QueueMessage } from '#shared/domain/events-out/deliveries.ts';
import { queueHandler } from '#shared/edge/queue.ts';

// The delivery queue's consumer keeps each endpoint's order: a batch's groups side by side, a
// group's records one after the other, and the records after a retry held behind it.

const record = (id: string, group: string): SQSRecord => ({
  messageId: id,
  receiptHandle: `rh-${id}`,
  body: id,
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn',
  awsRegion: 'us-east-1',
  messageAttributes: {},
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'x',
    ApproximateFirstReceiveTimestamp: '0',
    MessageGroupId: group,
  },
});
const context = (remainingMs: () => number) => ({ getRemainingTimeInMillis: remainingMs }) as unknown as Context;

async function run(records: SQSRecord[], outcome: (id: string) => AttemptOutcome | Error, remainingMs = () => 30_000) {
  const attempted: string[] = [];
  const held: Array<[string, number]> = [];
  const handler = queueHandler(
    async (m: QueueMessage) => {
      attempted.push(m.messageId);
      await new Promise((r) => setTimeout(r, 1));
      const o = outcome(m.messageId);
      if (o instanceof Error) throw o;
      return o;
    },
    {
      hold: async (rh, s) => {
        held.push([rh, s]);
      },
      attemptMs: () => 10_000,
    },
  );
  const res = await handler({ Records: records } as SQSEvent, context(remainingMs));
  return { attempted, held, failed: res.batchItemFailures.map((f) => f.itemIdentifier).sort() };
}

describe('queueHandler (ordered per message group)', () => {
  it('runs a group in order and, after a retry, attempts nothing more of it: the rest reported and held as long; other groups go on', async () => {
    const r = await run(
      [record('a1', 'A'), record('b1', 'B'), record('a2', 'A'), record('a3', 'A'), record('b2', 'B')],
      (id) => (id === 'a1' ? { outcome: 'retry', retryAfterSeconds: 300 } : { outcome: 'done' }),
    );
    expect(r.attempted.filter((x) => x.startsWith('a'))).toEqual(['a1']);
    expect(r.attempted.filter((x) => x.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(r.failed).toEqual(['a1', 'a2', 'a3']);
    expect(r.held).toEqual([
      ['rh-a2', 300],
      ['rh-a3', 300],
    ]);
  });

  it("leaves a record that threw, and those after it in its group, to the queue's own visibility timeout", async () => {
    const r = await run([record('a1', 'A'), record('a2', 'A'), record('a3', 'A')], (id) =>
      id === 'a2' ? new Error('boom') : { outcome: 'done' },
    );
    expect(r.attempted).toEqual(['a1', 'a2']);
    expect(r.failed).toEqual(['a2', 'a3']);
    expect(r.held).toEqual([]);
  });

  it('starts no attempt that could outlast the function: the rest of the group comes back at once', async () => {
    let left = 25_000;
    const r = await run(
      [record('a1', 'A'), record('a2', 'A'), record('a3', 'A')],
      () => {
        left -= 8_000;
        return { outcome: 'done' };
      },
      () => left,
    );
    // 25 s left: a1 runs (17 s left), a2 runs (9 s left, under the 10 s an attempt may take), a3 waits.
    expect(r.attempted).toEqual(['a1', 'a2']);
    expect(r.failed).toEqual(['a3']);
    expect(r.held).toEqual([['rh-a3', 0]]);
  });
});
