import { EVENT_ITEM_TYPE } from '#shared/data/events.ts';

// The functions that no HTTP route invokes, declared once like the routes: the live channel's
// WebSocket routes, the consumer of the table's stream and the delivery queue's settings. The CDK
// stack and the local runtime both build their wiring from these.

/** Where clients open the live channel (the WebSocket API's stage, locally a path of the runtime). */
export const LIVE_PATH = '/api/v1/live';
/** API Gateway closes a WebSocket connection after this long without a frame either way. */
export const LIVE_IDLE_SECONDS = 10 * 60;

export interface SocketRoute {
  /** `$connect`, `$disconnect`, or the `action` of a client's frame (the API's route selection is `$request.body.action`). */
  routeKey: '$connect' | '$disconnect' | 'typing';
  /** Handler module, relative to `functions/`. */
  handler: string;
  table: 'read' | 'write';
  /** The function posts to live connections through the WebSocket API's management endpoint. */
  manageConnections?: boolean;
}

export const liveRoutes: readonly SocketRoute[] = [
  // Authenticates the widget key and conversation, or a member's one-time live ticket; a refusal
  // is the status code of the upgrade (401, 403, 404), before any frame.
  { routeKey: '$connect', handler: 'live/connect', table: 'write' },
  { routeKey: '$disconnect', handler: 'live/disconnect', table: 'write' },
  // `{ "action": "typing", "conversationId": "..." }`: relayed to the other side's sockets of that
  // conversation, stored nowhere (it only reads who the connection is and who receives).
  { routeKey: 'typing', handler: 'live/typing', table: 'read', manageConnections: true },
];

export interface StreamTrigger {
  handler: string;
  table: 'read' | 'write';
  /** A Lambda event filter pattern over the stream record; only matching records reach the handler. */
  filter: Record<string, unknown>;
  batchSize: number;
  /** Attempts of a failing record before it goes to the on-failure destination. */
  retryAttempts: number;
  /** The function's timeout (the stack's and the local reader's). */
  functionTimeoutSeconds: number;
  /** The handler starts no record with less than this left, and hands the rest back: a batch never times out. */
  marginSeconds: number;
  /** The function posts to live connections through the WebSocket API's management endpoint. */
  manageConnections: boolean;
}

export const eventDispatcher: StreamTrigger = {
  handler: 'events/dispatch',
  // It deletes the connection items of sockets that are gone.
  table: 'write',
  filter: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [EVENT_ITEM_TYPE] } } } },
  batchSize: 100,
  retryAttempts: 5,
  /**
   * Under load (about 3,000 chat messages with a CPU hog on 2 cores) batches of 100 ran past 10 s:
   * over 100 ms a record. A minute is 6 times that, and the margin makes it moot: the handler hands
   * back what it could not start in time, which counts as progress, never as a failure.
   */
  functionTimeoutSeconds: 60,
  marginSeconds: 10,
  manageConnections: true,
};

/**
 * The delivery queue (consumer: functions/events/deliver.ts), for the CDK stack and the local
 * emulation: SQS FIFO, one message group per endpoint, so each endpoint gets its deliveries in order.
 */
export const DELIVERY_QUEUE = {
  /** The delivery function's timeout: a batch's groups run side by side, a group's attempts one after the other while time is left. */
  functionTimeoutSeconds: 30,
  /** Six times the function timeout (AWS's advice for SQS event sources): a batch that crashed comes back after it. */
  visibilityTimeoutSeconds: 180,
  batchSize: 10,
  /**
   * Every attempt of a delivery is a receive of its message, and so is every attempt of each of the
   * (at most batchSize - 1) deliveries ahead of it in its group while it rides in their batches:
   * 8 attempts x 10 = 80 at most. The rest is room for crashed invocations; beyond it the message
   * goes to the dead-letter queue and alarms, so a message that crashes the consumer holds its
   * endpoint for at most this many visibility timeouts.
   */
  maxReceiveCount: 100,
  /** SQS's longest: a backlog behind a failing endpoint waits out whole retry schedules (see docs/INTEGRATIONS.md). */
  retentionDays: 14,
} as const;

/** The index queue (consumer: functions/events/index-content.ts), for the CDK stack and the local emulation. */
export const INDEX_QUEUE = {
  handler: 'events/index-content',
  /**
   * A pass embeds until 15 s before this and queues the tenant again: an import of 1,000 articles
   * (about 10,000 texts at ~25 a second) takes several passes.
   */
  functionTimeoutSeconds: 300,
  visibilityTimeoutSeconds: 1800,
  /** Messages only name a tenant: a batch's duplicates make one pass. */
  batchSize: 10,
  maxReceiveCount: 5,
} as const;

/** The export queue (consumer: functions/jobs/export-tenant.ts), for the CDK stack and the local emulation. */
export const EXPORT_QUEUE = {
  handler: 'jobs/export-tenant',
  /**
   * Lambda's longest. Measured locally: 738 items in 5.2 s on a loaded machine, so a run reads some
   * 100,000 items; the file is built in memory (its size: infra/memory.ts).
   */
  functionTimeoutSeconds: 900,
  /** Six times the function timeout (AWS's advice for SQS event sources). */
  visibilityTimeoutSeconds: 5400,
  batchSize: 1,
  maxReceiveCount: 3,
} as const;

/** Functions run on a schedule (EventBridge in AWS; the local runtime's timer). */
export interface ScheduledJob {
  handler: string;
  table: 'read' | 'write';
  /** How often, in minutes: the stack makes `rate(n minutes)`, the local runtime an interval. */
  everyMinutes: number;
  /** The function's timeout: a run stops before it and the next run goes on where it stopped. */
  timeoutSeconds: number;
}

export const scheduledJobs: readonly ScheduledJob[] = [
  // Stamps conversations past their tenant's retention with the TTL attribute (DynamoDB deletes them).
  { handler: 'jobs/retention', table: 'write', everyMinutes: 24 * 60, timeoutSeconds: 900 },
  // Removes what remains of deleted tenants, partition by partition (a run that stops is run again):
  // a deletion starts within 5 minutes; runs never overlap (4 of every 5 minutes at most).
  { handler: 'jobs/purge-tenants', table: 'write', everyMinutes: 5, timeoutSeconds: 240 },
  // Counts conversations resolved by the assistant (30 minutes after their last message) into the
  // day counters, so that /stats reads them in O(days); every 10 minutes: counted within an hour.
  { handler: 'jobs/resolutions', table: 'write', everyMinutes: 10, timeoutSeconds: 240 },
];
