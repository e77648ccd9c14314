import { memoryOf } from '#infra/memory.ts';
import { PRICES } from './prices.ts';
import type { DayFacts } from './day.ts';
import type { Meter } from './meter.ts';

// The day's work priced at list prices. Three kinds of line:
// - per conversation: what the day did, divided by its conversations (measured, or estimated where
//   the local runtime cannot show the figure: each says which and why);
// - per month, depending on traffic (X-Ray's sampling, cold starts);
// - per month, fixed (a KMS key, a secret, alarms, custom metrics, idle queue polling, schedules).

/** Lambda gives a function one full vCPU at 1,769 MB and a proportional share below it. */
const FULL_CPU_MB = 1769;
const SECONDS_A_MONTH = 30 * 24 * 3600;

/** Assumptions where nothing local measures the figure; each line using one is marked estimated. */
export const ASSUMPTIONS = {
  /** How long a handed-over customer's widget socket stays open (the idle timeout is 10 minutes). */
  widgetSocketMinutes: 15,
  /** An agent's dashboard socket: 8 hours a day, for about 40 handovers a day. */
  agentSocketMinutesPerHandover: (8 * 60) / 40,
  /** How long the shop's order endpoint takes to answer an action's call (the chat function waits for it, billed). */
  shopMs: 250,
  /** CloudWatch bills each log event's bytes plus 26. */
  logEventOverheadBytes: 26,
  /** X-Ray's default sampling: the first request each second, then 5 %. */
  xrayReservoirPerSecond: 1,
  xrayRate: 0.05,
  /** Cold starts: a warm container is reused for a few minutes; roughly one cold start per function per 10 idle minutes at low traffic. */
  coldStartsPerFunctionHourIdle: 6,
  /** Lambda's SQS pollers: 5 long polls of 20 s each on an idle queue; 3 queues with a function (deliveries, index, email out) and SES's event queue. */
  idleQueuePollsPerMonth: 4 * 5 * 3 * 60 * 24 * 30,
  /** Alarms: per function one errors alarm and one throttles metric (in alarms of 10), plus the service's own, about 15. */
  serviceAlarms: 15,
  /** Stored email: an inbound message's original kept in S3. */
  retentionNote: 'tenants keep conversations until they set a retention',
} as const;

export interface Line {
  item: string;
  service: string;
  usd: number;
  quantity: string;
  estimated: boolean;
  note?: string;
}

export interface Bill {
  /** Per conversation, each line's dollars. */
  perConversation: Line[];
  /** Per month at a volume: the lines that depend on traffic or are fixed. */
  monthly: (conversationsPerMonth: number) => Line[];
  /** Seconds of chat-function work per conversation and its memory: for the provisioned concurrency comparison. */
  chat: { invocationsPerConversation: number; meanMs: number; memoryMb: number };
  storageBytesPerConversation: number;
}

export interface BillInput {
  meter: Meter;
  facts: DayFacts;
  storageBytes: number;
  jobs: Array<{ handler: string; everyMinutes: number; ms: number }>;
  functions: number;
  initMs: (handler: string) => number;
}

export function bill({ meter, facts, storageBytes, jobs, functions, initMs }: BillInput): Bill {
  const n = facts.conversations;
  const per = (x: number) => x / n;
  const lines: Line[] = [];
  const add = (l: Line) => lines.push(l);

  // Lambda: each invocation's wall time, its CPU part stretched to the share its memory buys.
  const byFn = new Map<string, { count: number; gbs: number; ms: number }>();
  for (const i of meter.invocations) {
    const mb = memoryOf(i.handler);
    const stretch = Math.max(1, FULL_CPU_MB / mb);
    const billedMs = Math.ceil(i.ms + i.cpuMs * (stretch - 1));
    const f = byFn.get(i.handler) ?? { count: 0, gbs: 0, ms: 0 };
    f.count++;
    f.gbs += (mb / 1024) * (billedMs / 1000);
    f.ms += i.ms;
    byFn.set(i.handler, f);
  }
  for (const [handler, f] of byFn) {
    add({
      item: `Lambda ${handler}`,
      service: 'Lambda',
      usd: per(f.gbs * PRICES.lambdaGbSecond),
      estimated: false,
      quantity: `${(f.count / n).toFixed(2)} invocations, ${(f.ms / f.count).toFixed(1)} ms mean at ${memoryOf(handler)} MB`,
      note: 'duration measured locally; its CPU time stretched to the vCPU share the memory buys',
    });
  }
  const invocations = meter.invocations.length;
  add({
    item: 'Lambda requests',
    service: 'Lambda',
    usd: per(invocations * PRICES.lambdaRequest),
    estimated: false,
    quantity: `${per(invocations).toFixed(1)} invocations`,
  });

  const http = meter.httpRequests();
  add({
    item: 'API Gateway HTTP requests',
    service: 'API Gateway',
    usd: per(http * PRICES.httpRequest),
    estimated: false,
    quantity: `${per(http).toFixed(1)} requests`,
  });
  const wsMessages = facts.socketFramesOut + meter.socketMessagesIn();
  add({
    item: 'API Gateway WebSocket messages',
    service: 'API Gateway',
    usd: per(wsMessages * PRICES.wsMessage),
    estimated: false,
    quantity: `${per(wsMessages).toFixed(1)} messages`,
    note: 'one agent dashboard open; each further agent online receives every event of its tenant again',
  });
  const minutes = facts.handedOver * (ASSUMPTIONS.widgetSocketMinutes + ASSUMPTIONS.agentSocketMinutesPerHandover);
  add({
    item: 'API Gateway WebSocket connection-minutes',
    service: 'API Gateway',
    usd: per(minutes * PRICES.wsConnectionMinute),
    estimated: true,
    quantity: `${per(minutes).toFixed(1)} minutes`,
    note: `a handed-over widget's socket ${ASSUMPTIONS.widgetSocketMinutes} min; an agent's 8 h a day per 40 handovers`,
  });

  const dyn = meter.dynamo();
  add({
    item: 'DynamoDB write request units',
    service: 'DynamoDB',
    usd: per(dyn.write * PRICES.dynamoWriteUnit),
    estimated: false,
    quantity: `${per(dyn.write).toFixed(1)} WRU`,
  });
  add({
    item: 'DynamoDB read request units',
    service: 'DynamoDB',
    usd: per(dyn.read * PRICES.dynamoReadUnit),
    estimated: false,
    quantity: `${per(dyn.read).toFixed(1)} RRU`,
  });
  add({
    item: 'DynamoDB storage (one month kept)',
    service: 'DynamoDB',
    usd: per((storageBytes / 1e9) * PRICES.dynamoGbMonth),
    estimated: false,
    quantity: `${(per(storageBytes) / 1024).toFixed(1)} KB a conversation`,
    note: `for each further month kept; ${ASSUMPTIONS.retentionNote}`,
  });
  add({
    item: 'DynamoDB Streams reads',
    service: 'DynamoDB',
    usd: 0,
    estimated: false,
    quantity: 'read by the Lambda trigger',
    note: 'GetRecords by a Lambda trigger is free',
  });

  // SQS: each message sent once; Lambda's poller receives and deletes a batch in one request each.
  const batches = meter.invocations.filter((i) => i.sqs).length;
  const standard = facts.queueOps.send - facts.queueOps.fifoSend + facts.queueOps.changeVisibility + 2 * batches;
  add({
    item: 'SQS requests',
    service: 'SQS',
    estimated: false,
    usd: per(standard * PRICES.sqsRequest + facts.queueOps.fifoSend * PRICES.sqsFifoRequest),
    quantity: `${per(standard + facts.queueOps.fifoSend).toFixed(1)} requests`,
    note: 'sends and visibility changes counted; a receive and a delete per batch',
  });
  add({
    item: 'SES messages sent',
    service: 'SES',
    usd: per(facts.mailOut * PRICES.sesMessageOut),
    estimated: false,
    quantity: `${per(facts.mailOut).toFixed(2)} messages`,
  });
  add({
    item: 'SES messages received',
    service: 'SES',
    estimated: false,
    // Every message is at least one 256 KB chunk; the day's mails are a few KB each.
    usd: per(
      facts.mailIn * PRICES.sesMessageIn +
        Math.max(facts.mailIn, Math.ceil(facts.mailInBytes / 262144)) * PRICES.sesChunkIn,
    ),
    quantity: `${per(facts.mailIn).toFixed(2)} messages`,
  });
  add({
    item: 'S3 stored mail',
    service: 'S3',
    estimated: true,
    usd: per(facts.mailIn * (PRICES.s3Put + PRICES.s3Get) + (facts.mailInBytes / 1e9) * PRICES.s3GbMonth),
    quantity: `${per(facts.mailIn).toFixed(2)} objects`,
    note: 'SES puts each original, the receiving function reads it once',
  });

  const logBytes = meter.logBytes + meter.logLines * ASSUMPTIONS.logEventOverheadBytes;
  add({
    item: 'CloudWatch Logs ingestion',
    service: 'CloudWatch',
    usd: per((logBytes / 1e9) * PRICES.logsIngestGb),
    estimated: true,
    quantity: `${(per(logBytes) / 1024).toFixed(1)} KB`,
    note: "the local process's log lines at INFO with metrics on, as the functions print them in Lambda (platform lines are off: WARN)",
  });
  add({
    item: 'KMS requests',
    service: 'KMS',
    usd: 0,
    estimated: true,
    quantity: 'per cold start, not per message',
    note: "the delivery function decrypts a webhook's secret, the chat function an action's, once per container (monthly line)",
  });

  const entry = http + meter.socketMessagesIn() + meter.socketConnects();
  const monthly = (volume: number): Line[] => {
    const scale = volume / n;
    const out: Line[] = [];
    const requestsPerSecond = (entry * scale) / SECONDS_A_MONTH;
    const traced =
      Math.min(requestsPerSecond, ASSUMPTIONS.xrayReservoirPerSecond) +
      Math.max(0, requestsPerSecond - ASSUMPTIONS.xrayReservoirPerSecond) * ASSUMPTIONS.xrayRate;
    out.push({
      item: 'X-Ray traces',
      service: 'X-Ray',
      usd: traced * SECONDS_A_MONTH * PRICES.xrayTrace,
      estimated: true,
      quantity: `${Math.round(traced * SECONDS_A_MONTH).toLocaleString('en-US')} traces`,
      note: 'default sampling, 1 a second then 5 %; requests measured',
    });
    // Cold starts: a function with traffic all month long is cold about once per container per hour
    // or two; at low traffic about once per idle gap. Init bills as duration since August 2025.
    let coldUsd = 0,
      cold = 0;
    for (const [handler, f] of byFn) {
      const callsAMonth = f.count * scale;
      const starts = Math.min(callsAMonth, 24 * 30 * ASSUMPTIONS.coldStartsPerFunctionHourIdle);
      cold += starts;
      coldUsd +=
        starts *
        (memoryOf(handler) / 1024) *
        (initMs(handler) / 1000) *
        Math.max(1, FULL_CPU_MB / memoryOf(handler)) *
        PRICES.lambdaGbSecond;
    }
    out.push({
      item: 'Lambda init (cold starts)',
      service: 'Lambda',
      usd: coldUsd,
      estimated: true,
      quantity: `${Math.round(cold).toLocaleString('en-US')} cold starts`,
      note: "init measured in a fresh process (docs/SIZING.md), stretched to the memory's CPU share; count assumed",
    });
    // A container decrypts an integration's secret on its first use: the delivery function's
    // webhooks, and the chat function's action when the day called one.
    const decrypting = ['events/deliver', ...(facts.actionCalls > 0 ? ['chat/send-message'] : [])];
    const decrypts = decrypting.reduce(
      (sum, handler) =>
        sum + Math.min((byFn.get(handler)?.count ?? 0) * scale, 24 * 30 * ASSUMPTIONS.coldStartsPerFunctionHourIdle),
      0,
    );
    out.push({
      item: 'KMS requests and key',
      service: 'KMS',
      usd: PRICES.kmsKeyMonth + decrypts * PRICES.kmsRequest,
      estimated: true,
      quantity: `1 key, ${Math.round(decrypts)} Decrypt`,
    });
    out.push({
      item: 'Secrets Manager (cursor key)',
      service: 'Secrets Manager',
      usd: PRICES.secretMonth,
      estimated: false,
      quantity: '1 secret',
    });
    const alarmMetrics = 2 * functions + ASSUMPTIONS.serviceAlarms;
    out.push({
      item: 'CloudWatch alarms',
      service: 'CloudWatch',
      usd: alarmMetrics * PRICES.alarmMonth,
      estimated: true,
      quantity: `about ${alarmMetrics} alarm metrics`,
    });
    out.push({
      item: 'CloudWatch custom metrics',
      service: 'CloudWatch',
      usd: meter.metrics.size * PRICES.metricMonth,
      estimated: false,
      quantity: `${meter.metrics.size} metrics seen in the day`,
    });
    out.push({
      item: 'SQS idle polling',
      service: 'SQS',
      usd: ASSUMPTIONS.idleQueuePollsPerMonth * PRICES.sqsRequest,
      estimated: true,
      quantity: `${ASSUMPTIONS.idleQueuePollsPerMonth.toLocaleString('en-US')} empty receives`,
    });
    for (const j of jobs) {
      const runs = (30 * 24 * 60) / j.everyMinutes;
      const mb = memoryOf(j.handler);
      out.push({
        item: `Scheduled ${j.handler}`,
        service: 'Lambda',
        estimated: false,
        usd: runs * ((mb / 1024) * (Math.ceil(j.ms) / 1000) * PRICES.lambdaGbSecond + PRICES.lambdaRequest),
        quantity: `${runs.toLocaleString('en-US')} runs of ${j.ms.toFixed(0)} ms at ${mb} MB`,
      });
    }
    return out;
  };

  const chat = byFn.get('chat/send-message') ?? { count: 0, ms: 0, gbs: 0 };
  return {
    perConversation: lines,
    monthly,
    chat: {
      invocationsPerConversation: per(chat.count),
      meanMs: chat.count ? chat.ms / chat.count : 0,
      memoryMb: memoryOf('chat/send-message'),
    },
    storageBytesPerConversation: per(storageBytes),
  };
}

/** Chat at a month's volume: on demand against `instances` of provisioned concurrency (arm64). */
export function provisioned(chat: Bill['chat'], conversationsPerMonth: number, peakToMean = 10) {
  const gb = chat.memoryMb / 1024;
  const invocations = chat.invocationsPerConversation * conversationsPerMonth;
  const busySeconds = (invocations * chat.meanMs) / 1000;
  const meanConcurrency = busySeconds / SECONDS_A_MONTH;
  const instances = Math.max(1, Math.ceil(meanConcurrency * peakToMean));
  const onDemand = busySeconds * gb * PRICES.lambdaGbSecond;
  const provisionedUsd =
    instances * SECONDS_A_MONTH * gb * PRICES.provisionedGbSecond +
    busySeconds * gb * PRICES.provisionedDurationGbSecond;
  // Provisioned pays when its instances are busy more than this share of the time.
  const breakEvenUtilisation =
    PRICES.provisionedGbSecond / (PRICES.lambdaGbSecond - PRICES.provisionedDurationGbSecond);
  const breakEvenConversations =
    (breakEvenUtilisation * SECONDS_A_MONTH) / ((chat.invocationsPerConversation * chat.meanMs) / 1000);
  return {
    invocations,
    meanConcurrency,
    instances,
    onDemand,
    provisioned: provisionedUsd,
    breakEvenUtilisation,
    breakEvenConversations,
  };
}
