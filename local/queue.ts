import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './events.ts';

// A local SQS standard queue with a dead-letter queue, as the delivery function sees it in AWS:
// - it serves the SQS JSON protocol (X-Amz-Target AmazonSQS.*) for the calls the service makes, so
//   the same @aws-sdk/client-sqs client posts to it (SQS_ENDPOINT, DELIVERY_QUEUE_URL);
// - it polls like Lambda's event source mapping: batches of up to 10 visible messages, as
//   SQS-shaped records, with ReportBatchItemFailures (listed records stay, the others are deleted;
//   a thrown error keeps the whole batch);
// - delays, visibility timeouts and receive counts behave as in SQS; a message received more than
//   maxReceiveCount times moves to the DLQ;
// - fair queues: messages sent with a MessageGroupId (the tenant) are handed out group by group,
//   the group with the fewest messages in flight first, and each batch holds one group's messages,
//   so a tenant whose endpoints hang holds up only its own batches. A group with nothing in flight
//   may start a batch beyond the usual concurrency (as Lambda adds pollers when a quiet tenant's
//   messages wait), up to FAIR_HEADROOM times it.
// - durable when given a `file` (`npm start -- --persist`): every change (send, receive, visibility,
//   delete, dead letter) is written to it before the call returns, as SQS stores a message before it
//   answers SendMessage. On start the file's messages come back with their ids, receive counts and
//   visibility: a message waiting out a retry's visibility is delivered when it ends, and one that
//   was in flight when the process died becomes visible when its visibility timeout ends, as in SQS
//   (receipt handles die with the process: a new receive gets a new one).
// - FIFO (`fifo: true`, a name ending in `.fifo`), as SQS FIFO queues with high throughput
//   (deduplication per message group): SendMessage needs a MessageGroupId and a
//   MessageDeduplicationId, takes no per-message DelaySeconds, answers a SequenceNumber, and a
//   deduplication id seen in its group within 5 minutes is accepted and dropped (the first
//   message's id is answered). Within a group messages are handed out in the order they were sent,
//   and no message of a group is handed out while another of it is in flight, received and not yet
//   visible again or deleted: a message held back with ChangeMessageVisibility holds its whole group.
//   A batch takes groups' messages in order, oldest group first, and may hold several groups (as
//   Lambda's batches from a FIFO queue may); groups waiting for a batch get one beyond the usual
//   concurrency, as Lambda scales with the active message groups.
// `timeScale` compresses every delay and visibility timeout for tests (0.001: 5 min -> 300 ms).

export type SqsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse | undefined>;

export interface LocalQueueOptions {
  name: string;
  /** The local runtime's base URL; the queue is served under `<base>/local-sqs`. */
  baseUrl: string;
  /** The consumer, loaded on first use. */
  handler: () => Promise<SqsHandler>;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  batchSize?: number;
  /** Batches in flight at once (Lambda's concurrent invocations of the consumer). */
  concurrency?: number;
  /** The consumer's timeout, told by a Lambda context (without it the consumer gets none). */
  functionTimeoutSeconds?: number;
  timeScale?: number;
  region?: string;
  /** Keep the queue (and its dead letters) in this JSON file across restarts; in memory without it. */
  file?: string;
  /** A FIFO queue (the name must end in `.fifo`); a standard queue without it. */
  fifo?: boolean;
}

/** How far past its concurrency the consumer may go to serve groups that have nothing in flight. */
const FAIR_HEADROOM = 4;

interface Message {
  id: string;
  body: string;
  md5: string;
  group: string | null;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceiveAt: number | null;
  receiptHandle: string | null;
  inFlight: boolean;
  /** FIFO only: the deduplication id and the sequence number (20 digits, rising in send order). */
  dedupId?: string;
  sequence?: string;
}

/** SQS FIFO's deduplication interval. */
const DEDUP_SECONDS = 300;

/** What the queue was asked to do, in order: tests read the retry schedule from it. */
export interface QueueOp {
  op: 'send' | 'changeVisibility' | 'delete' | 'deadLetter';
  messageId: string;
  seconds?: number;
  at: number;
}

export interface LocalQueue {
  url: string;
  endpoint: string;
  /** Answers an SQS JSON request sent to `/local-sqs...`. */
  serve(target: string, body: string): { status: number; headers: Record<string, string>; body: string };
  readonly ops: readonly QueueOp[];
  readonly deadLetters: readonly { id: string; body: string; receiveCount: number }[];
  /** Messages waiting or in flight. */
  size(): number;
  /** Resolves when no message is waiting or in flight. */
  idle(): Promise<void>;
  /** Stops handing out batches (messages keep arriving); for benchmarks that fill the queue first. */
  pause(): void;
  resume(): void;
  /** Batches in flight at once: Lambda's concurrent invocations of the consumer. */
  setConcurrency(n: number): void;
  stop(): Promise<void>;
}

const ACCOUNT = '000000000000';
const PATH = '/local-sqs';
const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function isQueueRequest(path: string) {
  return path === PATH || path.startsWith(`${PATH}/`);
}

export function createLocalQueue(o: LocalQueueOptions): LocalQueue {
  const scale = o.timeScale ?? 1;
  if (!(scale > 0 && scale <= 1)) throw new Error('timeScale must be in (0, 1]');
  const region = o.region ?? 'us-east-1';
  const batchSize = o.batchSize ?? 10;
  const fifo = o.fifo === true;
  if (fifo !== o.name.endsWith('.fifo')) throw new Error("a FIFO queue's name, and only its name, ends in .fifo");
  let concurrency = o.concurrency ?? 4;
  let paused = false;
  const endpoint = `${o.baseUrl}${PATH}`;
  const url = `${endpoint}/${ACCOUNT}/${o.name}`;
  const arn = `arn:aws:sqs:${region}:${ACCOUNT}:${o.name}`;
  const messages = new Map<string, Message>();
  const ops: QueueOp[] = [];
  const deadLetters: { id: string; body: string; receiveCount: number }[] = [];
  /** FIFO: `group\ndedupId` -> the message id it was first sent as, and when. */
  const dedup = new Map<string, { id: string; sequence: string; at: number }>();
  const counter = { sequence: BigInt(Date.now()) * 1_000_000n };
  if (o.file) load(o.file, messages, deadLetters, dedup, counter);
  /** Writes the queue's state to its file (atomically: a temporary file renamed over it). */
  const persist = () => {
    if (!o.file) return;
    const tmp = `${o.file}.tmp`;
    writeFileSync(
      tmp,
      JSON.stringify({
        version: 1,
        name: o.name,
        messages: [...messages.values()].map(({ inFlight: _f, receiptHandle: _r, ...m }) => m),
        deadLetters,
        ...(fifo ? { sequence: String(counter.sequence), dedup: [...dedup.entries()] } : {}),
      }),
    );
    renameSync(tmp, o.file);
  };
  const ms = (seconds: number) => seconds * 1000 * scale;
  let running = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let idleWaiters: Array<() => void> = [];
  let handlerP: Promise<SqsHandler> | null = null;

  const log = (op: QueueOp['op'], messageId: string, seconds?: number) =>
    ops.push({ op, messageId, ...(seconds !== undefined ? { seconds } : {}), at: Date.now() });

  function checkIdle() {
    if (messages.size === 0 && running === 0) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const f of w) f();
    }
  }

  function schedule() {
    if (stopped || paused) return;
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    const now = Date.now();
    for (;;) {
      const batch = nextBatch(now);
      if (!batch) break;
      void run(batch);
    }
    const next = Math.min(...[...messages.values()].filter((m) => !m.inFlight).map((m) => m.visibleAt));
    if (Number.isFinite(next)) {
      timer = setTimeout(schedule, Math.max(0, next - Date.now()));
      timer.unref();
    }
    checkIdle();
  }

  /** The next batch to hand out, or null: one group's oldest visible messages, the least busy group first. */
  function nextBatch(now: number): Message[] | null {
    if (fifo) return nextFifoBatch(now);
    if (running >= concurrency * FAIR_HEADROOM) return null;
    const busy = new Map<string | null, number>();
    const waiting = new Map<string | null, Message[]>();
    for (const m of messages.values()) {
      if (m.inFlight) busy.set(m.group, (busy.get(m.group) ?? 0) + 1);
      else if (m.visibleAt <= now) waiting.set(m.group, [...(waiting.get(m.group) ?? []), m]);
    }
    if (waiting.size === 0) return null;
    const [group, ready] = [...waiting.entries()].sort(
      ([a, x], [b, y]) => (busy.get(a) ?? 0) - (busy.get(b) ?? 0) || x[0]!.visibleAt - y[0]!.visibleAt,
    )[0]!;
    // Within the usual concurrency anyone goes; beyond it, only a group with nothing in flight.
    if (running >= concurrency && (busy.get(group) ?? 0) > 0) return null;
    // Messages without a group (a plain standard queue) may share a batch, as before.
    return ready.sort((a, b) => a.visibleAt - b.visibleAt || a.sentAt - b.sentAt).slice(0, batchSize);
  }

  /**
   * FIFO: the groups with nothing in flight (every message visible), oldest head first, each
   * group's messages in send order, up to a batch. Every group handed out has nothing in flight, so
   * batches may go beyond the usual concurrency, as Lambda scales a FIFO source with its active
   * message groups (up to FAIR_HEADROOM times it here): endpoints that hang do not hold the others.
   */
  function nextFifoBatch(now: number): Message[] | null {
    if (running >= concurrency * FAIR_HEADROOM) return null;
    const groups = new Map<string, Message[]>();
    const held = new Set<string>();
    for (const m of messages.values()) {
      const g = m.group!;
      if (m.inFlight || m.visibleAt > now) held.add(g);
      else groups.set(g, [...(groups.get(g) ?? []), m]);
    }
    const bySequence = (a: Message, b: Message) => (a.sequence! < b.sequence! ? -1 : a.sequence! > b.sequence! ? 1 : 0);
    const ready = [...groups.entries()]
      .filter(([g]) => !held.has(g))
      .map(([, ms]) => ms.sort(bySequence))
      .sort((a, b) => bySequence(a[0]!, b[0]!));
    const batch = ready.flat().slice(0, batchSize);
    return batch.length ? batch : null;
  }

  async function run(candidates: Message[]) {
    const now = Date.now();
    const batch: Message[] = [];
    for (const m of candidates) {
      m.receiveCount++;
      // SQS moves a message to the DLQ when a receive would exceed maxReceiveCount.
      if (m.receiveCount > o.maxReceiveCount) {
        messages.delete(m.id);
        deadLetters.push({ id: m.id, body: m.body, receiveCount: m.receiveCount - 1 });
        log('deadLetter', m.id);
        continue;
      }
      m.inFlight = true;
      m.receiptHandle = randomUUID();
      m.firstReceiveAt ??= now;
      m.visibleAt = now + ms(o.visibilityTimeoutSeconds);
      batch.push(m);
    }
    persist();
    if (batch.length === 0) return;
    running++;
    const records: SQSRecord[] = batch.map((m) => ({
      messageId: m.id,
      receiptHandle: m.receiptHandle!,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: ACCOUNT,
        ApproximateFirstReceiveTimestamp: String(m.firstReceiveAt),
        ...(m.group !== null ? { MessageGroupId: m.group } : {}),
        ...(m.dedupId !== undefined ? { MessageDeduplicationId: m.dedupId, SequenceNumber: m.sequence! } : {}),
      },
      messageAttributes: {},
      md5OfBody: m.md5,
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: region,
    }));
    let keep: Set<string>;
    try {
      handlerP ??= o.handler();
      const context = o.functionTimeoutSeconds
        ? lambdaContext({ handler: o.name }, o.functionTimeoutSeconds * 1000)
        : undefined;
      const result = await (await handlerP)({ Records: records }, context);
      keep = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (e) {
      console.error(`local queue ${o.name}: the consumer threw; the batch stays in the queue`, e);
      keep = new Set(batch.map((m) => m.id));
    }
    for (const m of batch) {
      if (keep.has(m.id)) {
        m.inFlight = false;
        m.receiptHandle = null;
      } else if (messages.get(m.id) === m) {
        messages.delete(m.id);
        log('delete', m.id);
      }
    }
    persist();
    running--;
    schedule();
  }

  type Sent = { MessageId: string; MD5OfMessageBody: string; SequenceNumber?: string };
  function send(body: unknown, delay: unknown, group?: unknown, dedupId?: unknown): Sent {
    if (group !== undefined && (typeof group !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(group))) {
      throw new SqsError('InvalidParameterValue', 'MessageGroupId must be 1 to 128 printable characters');
    }
    if (typeof body !== 'string' || body.length === 0)
      throw new SqsError('InvalidParameterValue', 'MessageBody is required');
    if (fifo) {
      if (group === undefined)
        throw new SqsError('MissingParameter', 'The request must contain the parameter MessageGroupId.');
      if (dedupId === undefined) {
        throw new SqsError(
          'InvalidParameterValue',
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      }
      if (typeof dedupId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(dedupId)) {
        throw new SqsError('InvalidParameterValue', 'MessageDeduplicationId must be 1 to 128 printable characters');
      }
      if (delay !== undefined) {
        throw new SqsError(
          'InvalidParameterValue',
          `Value ${String(delay)} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
        );
      }
    } else if (dedupId !== undefined) {
      throw new SqsError('InvalidParameterValue', 'MessageDeduplicationId is for FIFO queues only');
    }
    const d = delay === undefined ? 0 : delay;
    if (!Number.isInteger(d) || (d as number) < 0 || (d as number) > 900) {
      throw new SqsError('InvalidParameterValue', 'DelaySeconds must be an integer from 0 to 900');
    }
    const now = Date.now();
    let sequence: string | undefined;
    if (fifo) {
      for (const [k, e] of dedup) if (now - e.at >= ms(DEDUP_SECONDS)) dedup.delete(k);
      const seen = dedup.get(`${group as string}\n${dedupId as string}`);
      // Accepted and dropped: the answer names the message first sent with this id.
      if (seen) return { MessageId: seen.id, MD5OfMessageBody: md5(body), SequenceNumber: seen.sequence };
      counter.sequence++;
      sequence = String(counter.sequence).padStart(20, '0');
    }
    const m: Message = {
      id: randomUUID(),
      body,
      md5: md5(body),
      group: (group as string | undefined) ?? null,
      sentAt: now,
      visibleAt: now + ms(d as number),
      receiveCount: 0,
      firstReceiveAt: null,
      receiptHandle: null,
      inFlight: false,
      ...(fifo ? { dedupId: dedupId as string, sequence: sequence! } : {}),
    };
    messages.set(m.id, m);
    if (fifo) dedup.set(`${m.group!}\n${m.dedupId!}`, { id: m.id, sequence: sequence!, at: now });
    persist();
    log('send', m.id, d as number);
    queueMicrotask(schedule);
    return { MessageId: m.id, MD5OfMessageBody: m.md5, ...(sequence ? { SequenceNumber: sequence } : {}) };
  }

  function inFlightBy(handle: unknown): Message {
    if (typeof handle !== 'string') throw new SqsError('ReceiptHandleIsInvalid', 'ReceiptHandle is required');
    for (const m of messages.values()) if (m.receiptHandle === handle) return m;
    throw new SqsError('ReceiptHandleIsInvalid', 'the receipt handle is not that of a message in flight');
  }

  const actions: Record<string, (input: Record<string, unknown>) => unknown> = {
    SendMessage: (input) =>
      send(input.MessageBody, input.DelaySeconds, input.MessageGroupId, input.MessageDeduplicationId),
    SendMessageBatch: (input) => {
      const entries = Array.isArray(input.Entries) ? (input.Entries as Array<Record<string, unknown>>) : [];
      if (entries.length === 0 || entries.length > 10)
        throw new SqsError('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', '1 to 10 entries');
      return {
        Successful: entries.map((e) => ({
          Id: e.Id,
          ...send(e.MessageBody, e.DelaySeconds, e.MessageGroupId, e.MessageDeduplicationId),
        })),
        Failed: [],
      };
    },
    ChangeMessageVisibility: (input) => {
      const m = inFlightBy(input.ReceiptHandle);
      const t = input.VisibilityTimeout;
      if (!Number.isInteger(t) || (t as number) < 0 || (t as number) > 43_200) {
        throw new SqsError('InvalidParameterValue', 'VisibilityTimeout must be an integer from 0 to 43200');
      }
      m.visibleAt = Date.now() + ms(t as number);
      persist();
      log('changeVisibility', m.id, t as number);
      return {};
    },
    DeleteMessage: (input) => {
      const m = inFlightBy(input.ReceiptHandle);
      messages.delete(m.id);
      persist();
      log('delete', m.id);
      return {};
    },
    GetQueueUrl: (input) => {
      if (input.QueueName !== o.name) throw new SqsError('AWS.SimpleQueueService.NonExistentQueue', 'no such queue');
      return { QueueUrl: url };
    },
    GetQueueAttributes: () => ({
      Attributes: {
        ApproximateNumberOfMessages: String([...messages.values()].filter((m) => !m.inFlight).length),
        ApproximateNumberOfMessagesNotVisible: String([...messages.values()].filter((m) => m.inFlight).length),
        QueueArn: arn,
        ...(fifo
          ? {
              FifoQueue: 'true',
              ContentBasedDeduplication: 'false',
              DeduplicationScope: 'messageGroup',
              FifoThroughputLimit: 'perMessageGroupId',
            }
          : {}),
      },
    }),
  };

  const reply = (status: number, body: unknown, extra: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID(), ...extra },
    body: JSON.stringify(body),
  });

  // Messages read from the file are handed out as they become visible.
  if (messages.size > 0) queueMicrotask(schedule);
  return {
    url,
    endpoint,
    ops,
    deadLetters,
    serve(target, raw) {
      const action = /^AmazonSQS\.(\w+)$/.exec(target)?.[1];
      const fn = action ? actions[action] : undefined;
      if (!fn)
        return reply(
          400,
          { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target} is not emulated` },
          { 'x-amzn-query-error': 'AWS.SimpleQueueService.UnsupportedOperation;Sender' },
        );
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(raw || '{}') as Record<string, unknown>;
      } catch {
        return reply(400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'body is not JSON' });
      }
      try {
        if (action !== 'GetQueueUrl' && input.QueueUrl !== url)
          throw new SqsError('AWS.SimpleQueueService.NonExistentQueue', `no queue at ${String(input.QueueUrl)}`);
        return reply(200, fn(input));
      } catch (e) {
        if (!(e instanceof SqsError)) throw e;
        const short = e.code.replace(/^AWS\.SimpleQueueService\./, '');
        return reply(
          400,
          { __type: `com.amazonaws.sqs#${short}`, message: e.message },
          { 'x-amzn-query-error': `${e.code};Sender` },
        );
      }
    },
    size: () => messages.size,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      schedule();
    },
    setConcurrency: (n) => {
      concurrency = n;
      schedule();
    },
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      }),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (running > 0) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

type Stored = Omit<Message, 'inFlight' | 'receiptHandle'>;

/** Reads a queue's file into `messages` and `deadLetters`; a file that is not the queue's is set aside, not trusted. */
function load(
  file: string,
  messages: Map<string, Message>,
  deadLetters: { id: string; body: string; receiveCount: number }[],
  dedup: Map<string, { id: string; sequence: string; at: number }>,
  counter: { sequence: bigint },
) {
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(file)) return;
  let state: { version?: unknown; messages?: unknown; deadLetters?: unknown; sequence?: unknown; dedup?: unknown };
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as typeof state;
    if (state.version !== 1 || !Array.isArray(state.messages) || !Array.isArray(state.deadLetters))
      throw new Error('not a queue file of version 1');
  } catch (e) {
    const aside = `${file}.unreadable-${Date.now()}`;
    renameSync(file, aside);
    console.warn(`local queue: ${file} could not be read (${(e as Error).message}); moved to ${aside}, starting empty`);
    return;
  }
  // Nothing is in flight after a restart: a message that was keeps the visibility its receive gave it.
  for (const m of state.messages as Stored[]) messages.set(m.id, { ...m, inFlight: false, receiptHandle: null });
  deadLetters.push(...(state.deadLetters as typeof deadLetters));
  // FIFO: sequence numbers keep rising, and a deduplication id stays known for its 5 minutes.
  if (typeof state.sequence === 'string' && BigInt(state.sequence) > counter.sequence)
    counter.sequence = BigInt(state.sequence);
  if (Array.isArray(state.dedup))
    for (const [k, e] of state.dedup as Array<[string, { id: string; sequence: string; at: number }]>) dedup.set(k, e);
}
