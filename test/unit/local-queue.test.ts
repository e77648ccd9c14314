import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { createLocalQueue, type LocalQueue, type SqsHandler } from '../../local/queue.ts';
import { eventually } from '../support/eventually.ts';

// The local SQS emulation: the real @aws-sdk/client-sqs posts to it, and its consumer gets
// SQS-shaped batches with SQS's delay, visibility, receive count, partial batch failure and DLQ rules.

let server: Server | undefined;
let queue: LocalQueue | undefined;
afterEach(async () => {
  await queue?.stop();
  server?.closeAllConnections();
  server?.close();
});

async function start(
  handler: SqsHandler,
  opts: { maxReceiveCount?: number; timeScale?: number; file?: string; fifo?: boolean } = {},
) {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = queue!.serve(String(req.headers['x-amz-target']), Buffer.concat(chunks).toString());
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  queue = createLocalQueue({
    name: opts.fifo ? 'q.fifo' : 'q',
    fifo: opts.fifo ?? false,
    baseUrl: base,
    handler: async () => handler,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: opts.maxReceiveCount ?? 5,
    timeScale: opts.timeScale ?? 0.001,
    ...(opts.file ? { file: opts.file } : {}),
  });
  const sqs = new SQSClient({
    region: 'us-east-1',
    endpoint: queue.endpoint,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  return { sqs, url: queue.url, q: queue };
}

describe('local SQS queue', () => {
  it('takes SendMessage from the SDK (MD5 checked by the SDK) and hands SQS-shaped records to the consumer', async () => {
    const seen: SQSEvent[] = [];
    const { sqs, url, q } = await start(async (e) => {
      seen.push(e);
      return undefined;
    });
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"a":1}' }));
    expect(sent.MessageId).toBeTruthy();
    await q.idle();
    const r = seen[0]!.Records[0]!;
    expect(r).toMatchObject({
      messageId: sent.MessageId,
      body: '{"a":1}',
      eventSource: 'aws:sqs',
      md5OfBody: sent.MD5OfMessageBody,
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(r.receiptHandle).toBeTruthy();
    expect(r.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:q$/);
    expect(q.size()).toBe(0);
  });

  it('keeps the records a batch reports as failed, with the visibility set through ChangeMessageVisibility; deletes the rest', async () => {
    const counts = new Map<string, string[]>();
    let sqs!: SQSClient;
    let url!: string;
    const started = await start(async (e) => {
      const failures = [];
      for (const r of e.Records) {
        counts.set(r.body, [...(counts.get(r.body) ?? []), r.attributes.ApproximateReceiveCount]);
        if (r.body === 'retry' && counts.get(r.body)!.length < 3) {
          await sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: url,
              ReceiptHandle: r.receiptHandle,
              VisibilityTimeout: 60,
            }),
          );
          failures.push({ itemIdentifier: r.messageId });
        }
      }
      return { batchItemFailures: failures };
    });
    ({ sqs, url } = started);
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'retry' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'once', DelaySeconds: 10 }));
    await started.q.idle();
    expect(counts.get('retry')).toEqual(['1', '2', '3']);
    expect(counts.get('once')).toEqual(['1']);
    expect(started.q.ops.filter((o) => o.op === 'changeVisibility').map((o) => o.seconds)).toEqual([60, 60]);
  });

  it('refuses what SQS refuses: delays over 15 minutes, visibility over 12 hours, unknown receipt handles and queues', async () => {
    const { sqs, url, q } = await start(async () => undefined);
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', DelaySeconds: 901 })),
    ).rejects.toThrow(/DelaySeconds/);
    await expect(
      sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: 'nope', VisibilityTimeout: 5 })),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: `${url}-other`, MessageBody: 'x' }))).rejects.toThrow(
      /no queue/,
    );
    expect(q.size()).toBe(0);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount receives; a consumer that throws keeps its batch', async () => {
    let calls = 0;
    const { sqs, url, q } = await start(
      async () => {
        calls++;
        throw new Error('boom');
      },
      { maxReceiveCount: 3, timeScale: 0.0001 },
    );
    const errors = console.error;
    console.error = () => {};
    try {
      const sent = await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'poison' }));
      await q.idle();
      expect(calls).toBe(3);
      expect(q.deadLetters).toEqual([{ id: sent.MessageId, body: 'poison', receiveCount: 3 }]);
    } finally {
      console.error = errors;
    }
  });

  it("is a fair queue: one tenant's hanging batches do not hold another tenant's message, and a batch holds one group", async () => {
    let release!: () => void;
    const hang = new Promise<void>((r) => {
      release = r;
    });
    const groupsPerBatch: string[][] = [];
    let quietAt = 0;
    const { sqs, url, q } = await start(
      async (e) => {
        const groups = e.Records.map((r) => r.attributes.MessageGroupId ?? '');
        groupsPerBatch.push([...new Set(groups)]);
        if (groups.includes('quiet')) quietAt = Date.now();
        else await hang;
        return { batchItemFailures: [] };
      },
      { timeScale: 1 },
    );
    q.setConcurrency(2);
    for (let i = 0; i < 40; i++)
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: `n${i}`, MessageGroupId: 'noisy' }));
    const sent = Date.now();
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'ping', MessageGroupId: 'quiet' }));
    await eventually(() => expect(quietAt, 'the quiet group handed out').toBeGreaterThan(0));
    expect(quietAt - sent).toBeLessThan(1000);
    expect(groupsPerBatch.every((g) => g.length === 1)).toBe(true);
    release();
    await q.idle();
  });
});

describe('local SQS FIFO queue', () => {
  it('asks what SQS FIFO asks of a sender: a group, a deduplication id, no per-message delay; answers rising sequence numbers', async () => {
    const { sqs, url, q } = await start(async () => undefined, { fifo: true });
    q.pause();
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageDeduplicationId: 'd' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: 'g' })),
    ).rejects.toThrow(/ContentBasedDeduplication/);
    await expect(
      sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'x',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd',
          DelaySeconds: 5,
        }),
      ),
    ).rejects.toThrow(/DelaySeconds/);
    const a = await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'a', MessageGroupId: 'g', MessageDeduplicationId: 'a' }),
    );
    const b = await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'b' }),
    );
    expect(a.SequenceNumber).toMatch(/^\d{20}$/);
    expect(BigInt(b.SequenceNumber!)).toBeGreaterThan(BigInt(a.SequenceNumber!));
    // The same deduplication id in its group within 5 minutes: accepted, dropped, answered with the first message's id.
    const again = await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'a again',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'a',
      }),
    );
    expect(again.MessageId).toBe(a.MessageId);
    // Deduplication is per group (high-throughput FIFO): another group may use the same id.
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'a', MessageGroupId: 'h', MessageDeduplicationId: 'a' }),
    );
    expect(q.size()).toBe(3);
  });

  it('hands out a group in send order and holds it while one of its messages waits out a retry; other groups go on', async () => {
    const seen: Array<{
      body: string;
      group: string;
      count: string;
      dedup: string | undefined;
      seq: string | undefined;
    }> = [];
    let sqs!: SQSClient;
    let url!: string;
    let failedOnce = false;
    const started = await start(
      async (e) => {
        const failures: Array<{ itemIdentifier: string }> = [];
        for (const r of e.Records) {
          const failing = failures.some(
            (f) =>
              e.Records.find((x) => x.messageId === f.itemIdentifier)?.attributes.MessageGroupId ===
              r.attributes.MessageGroupId,
          );
          if (failing) {
            failures.push({ itemIdentifier: r.messageId });
            continue;
          }
          seen.push({
            body: r.body,
            group: r.attributes.MessageGroupId!,
            count: r.attributes.ApproximateReceiveCount,
            dedup: r.attributes.MessageDeduplicationId,
            seq: r.attributes.SequenceNumber,
          });
          if (r.body === 'a1' && !failedOnce) {
            failedOnce = true;
            // 100 s at this scale: 100 ms, long enough for group b to go first.
            await sqs.send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: url,
                ReceiptHandle: r.receiptHandle,
                VisibilityTimeout: 100,
              }),
            );
            failures.push({ itemIdentifier: r.messageId });
          }
        }
        return { batchItemFailures: failures };
      },
      { fifo: true },
    );
    ({ sqs, url } = started);
    started.q.pause();
    for (const body of ['a1', 'a2', 'a3'])
      await sqs.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: 'a', MessageDeduplicationId: body }),
      );
    for (const body of ['b1', 'b2'])
      await sqs.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: 'b', MessageDeduplicationId: body }),
      );
    started.q.resume();
    await started.q.idle();
    const a = seen.filter((x) => x.group === 'a');
    expect(a.map((x) => x.body)).toEqual(['a1', 'a1', 'a2', 'a3']);
    // a2 and a3 rode in a1's first batch (a receive each) and came back behind it.
    expect(a.map((x) => x.count)).toEqual(['1', '2', '2', '2']);
    expect(seen.filter((x) => x.group === 'b').map((x) => x.body)).toEqual(['b1', 'b2']);
    // Group b was not held by a's retry.
    expect(seen.findIndex((x) => x.body === 'b2')).toBeLessThan(seen.findIndex((x, i) => x.body === 'a1' && i > 0));
    expect(seen[0]).toMatchObject({ dedup: 'a1', seq: expect.stringMatching(/^\d{20}$/) });
  });

  it("does not hand out a group's next message while one is in flight", async () => {
    let release!: () => void;
    const hang = new Promise<void>((r) => {
      release = r;
    });
    const batches: string[][] = [];
    const { sqs, url, q } = await start(
      async (e) => {
        batches.push(e.Records.map((r) => r.body));
        if (e.Records.some((r) => r.body === 'g1')) await hang;
        return { batchItemFailures: [] };
      },
      { fifo: true, timeScale: 1 },
    );
    q.setConcurrency(4);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'g1', MessageGroupId: 'g', MessageDeduplicationId: '1' }),
    );
    await eventually(() => expect(batches.length).toBeGreaterThan(0));
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'g2', MessageGroupId: 'g', MessageDeduplicationId: '2' }),
    );
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'h1', MessageGroupId: 'h', MessageDeduplicationId: '1' }),
    );
    // Handed out in send order: had g2 not been held, it would have come before h1.
    await eventually(() => expect(batches.length).toBeGreaterThanOrEqual(2));
    expect(batches).toEqual([['g1'], ['h1']]);
    release();
    await q.idle();
    expect(batches).toEqual([['g1'], ['h1'], ['g2']]);
  });

  it('keeps its sequence and deduplication ids in its file across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'queue-'));
    try {
      const file = join(dir, 'queue-q.fifo.json');
      const a = await start(async () => undefined, { fifo: true, file, timeScale: 1 });
      a.q.pause();
      const first = await a.sqs.send(
        new SendMessageCommand({ QueueUrl: a.url, MessageBody: 'x', MessageGroupId: 'g', MessageDeduplicationId: 'x' }),
      );
      await a.q.stop();
      server!.closeAllConnections();
      server!.close();
      const b = await start(async () => undefined, { fifo: true, file, timeScale: 1 });
      b.q.pause();
      const again = await b.sqs.send(
        new SendMessageCommand({ QueueUrl: b.url, MessageBody: 'x', MessageGroupId: 'g', MessageDeduplicationId: 'x' }),
      );
      const next = await b.sqs.send(
        new SendMessageCommand({ QueueUrl: b.url, MessageBody: 'y', MessageGroupId: 'g', MessageDeduplicationId: 'y' }),
      );
      expect(again.MessageId).toBe(first.MessageId);
      expect(BigInt(next.SequenceNumber!)).toBeGreaterThan(BigInt(first.SequenceNumber!));
      // Only y was a new message (x, kept in the file, may already have been handed out).
      expect(b.q.ops.filter((o) => o.op === 'send').map((o) => o.messageId)).toEqual([next.MessageId]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is FIFO by its name, as SQS: a FIFO queue's name ends in .fifo, and only its", () => {
    const base = {
      baseUrl: 'http://127.0.0.1:1',
      handler: async () => async () => undefined,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
    };
    expect(() => createLocalQueue({ ...base, name: 'q', fifo: true })).toThrow(/\.fifo/);
    expect(() => createLocalQueue({ ...base, name: 'q.fifo' })).toThrow(/\.fifo/);
  });
});

describe('local SQS queue kept in a file (npm start -- --persist)', () => {
  let dir: string;
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const stored = (file: string) =>
    JSON.parse(readFileSync(file, 'utf8')) as {
      messages: Array<{ id: string; receiveCount: number; visibleAt: number }>;
    };

  it('delivers after a restart a message that was waiting out a retry, with its id and receive count', async () => {
    dir = mkdtempSync(join(tmpdir(), 'queue-'));
    const file = join(dir, 'data', 'queue-q.json');
    // First run: the consumer fails and asks for the message again in 300 s (300 ms at this scale).
    const first: string[] = [];
    let sqs!: SQSClient;
    let url!: string;
    const a = await start(
      async (e) => {
        for (const r of e.Records) {
          first.push(r.attributes.ApproximateReceiveCount);
          await sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: url,
              ReceiptHandle: r.receiptHandle,
              VisibilityTimeout: 300,
            }),
          );
        }
        return { batchItemFailures: e.Records.map((r) => ({ itemIdentifier: r.messageId })) };
      },
      { file },
    );
    ({ sqs, url } = a);
    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: '{"delivery":1}', MessageGroupId: 't1' }),
    );
    await eventually(() => expect(first.length).toBeGreaterThan(0));
    await a.q.stop();
    server!.closeAllConnections();
    server!.close();
    expect(first).toEqual(['1']);
    const kept = stored(file).messages;
    expect(kept).toMatchObject([{ id: sent.MessageId, receiveCount: 1 }]);
    const retryAt = kept[0]!.visibleAt;

    // Second run, from the same file: the retry happens once its visibility ends, and succeeds.
    const second: Array<{ id: string; count: string; group: string | undefined; at: number }> = [];
    const b = await start(
      async (e) => {
        for (const r of e.Records)
          second.push({
            id: r.messageId,
            count: r.attributes.ApproximateReceiveCount,
            group: r.attributes.MessageGroupId,
            at: Date.now(),
          });
        return { batchItemFailures: [] };
      },
      { file },
    );
    expect(b.q.size()).toBe(1);
    await b.q.idle();
    expect(second).toEqual([{ id: sent.MessageId, count: '2', group: 't1', at: expect.any(Number) }]);
    expect(second[0]!.at).toBeGreaterThanOrEqual(retryAt);
    expect(stored(file).messages).toEqual([]);
  });

  it('brings back a message that was in flight when the process died once its visibility timeout ends, and keeps dead letters', async () => {
    dir = mkdtempSync(join(tmpdir(), 'queue-'));
    const file = join(dir, 'queue-q.json');
    // A process that dies in the middle of a batch: its consumer never returns and it is never stopped.
    let received = 0;
    const a = await start(
      async () => {
        received++;
        return new Promise<never>(() => {});
      },
      { file },
    );
    await a.sqs.send(new SendMessageCommand({ QueueUrl: a.url, MessageBody: 'in flight' }));
    await eventually(() => expect(received).toBeGreaterThan(0));
    a.q.pause();
    server!.closeAllConnections();
    server!.close();
    queue = undefined;
    const [inFlight] = stored(file).messages;
    expect(inFlight).toMatchObject({ receiveCount: 1 });
    // visibility 30 s at the scale 0.001
    expect(inFlight!.visibleAt - Date.now()).toBeLessThanOrEqual(30);

    const bodies: string[] = [];
    const errors = console.error;
    console.error = () => {};
    try {
      // The next process delivers it as the second receive; its consumer throws, and with maxReceiveCount 2
      // the third receive moves it to the dead-letter queue, which is kept in the file too.
      const b = await start(
        async (e) => {
          bodies.push(...e.Records.map((r) => `${r.body}#${r.attributes.ApproximateReceiveCount}`));
          throw new Error('down');
        },
        { file, maxReceiveCount: 2 },
      );
      await b.q.idle();
      expect(bodies).toEqual(['in flight#2']);
      expect(b.q.deadLetters).toMatchObject([{ body: 'in flight', receiveCount: 2 }]);
      await b.q.stop();
    } finally {
      console.error = errors;
    }
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      messages: [],
      deadLetters: [{ body: 'in flight', receiveCount: 2 }],
    });
  });

  it('sets an unreadable file aside and starts empty', async () => {
    dir = mkdtempSync(join(tmpdir(), 'queue-'));
    const file = join(dir, 'queue-q.json');
    writeFileSync(file, '{"version":1,"messages":[');
    const warn = console.warn;
    console.warn = () => {};
    try {
      const { q } = await start(async () => undefined, { file });
      expect(q.size()).toBe(0);
    } finally {
      console.warn = warn;
    }
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).some((f) => f.startsWith('queue-q.json.unreadable-'))).toBe(true);
  });
});
