import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { join } from 'node:path';
import { fifoFields, parseMessage } from '#shared/data/delivery-queue.ts';
import {
  DELIVERY_QUEUE,
  eventDispatcher,
  EXPORT_QUEUE,
  INDEX_QUEUE,
  LIVE_IDLE_SECONDS,
  LIVE_PATH,
  liveRoutes,
  scheduledJobs,
} from '#shared/edge/triggers.ts';
import { startTtlSweeper } from './ttl.ts';
import { createLocalIdp, type LocalIdp } from './idp.ts';
import { createFunctions } from './lambda.ts';
import { createHttpApi, CORS_HEADERS, inProcess, readBody, send, type ApiHandler } from './http-api.ts';
import { createLanes } from './lanes.ts';
import { ensureTable, startDynamoLocal, type DynamoLocal } from './dynamodb-local.ts';
import { createLocalQueue, type LocalQueue, type SqsHandler } from './queue.ts';
import { createLiveGateway, type LiveGateway, type SocketResult } from './live.ts';
import { startStreamReader, type OnFailureRecord, type StreamReader } from './stream.ts';
import { webAssets } from './web.ts';
import { dashboardHandler, type DashboardOptions } from './dashboard.ts';
import { createLocalObjects, type LocalObjects } from './objects.ts';
import { startLocalMail, type LocalMail } from './smtp.ts';
import { startStandIns, type StandIns } from './standins.ts';
import { newLocalCredentials } from './sigv4.ts';

// The local runtime: the AWS services the stack deploys, each emulated in its own module and
// wired here as the stack wires them, on 127.0.0.1. API Gateway's HTTP API (http-api.ts) invokes
// the route table's handlers (lambda.ts); beside it the WebSocket API of the live channel (live.ts;
// its management API, signed, on the stand-ins' port with S3 and SQS, standins.ts), the table
// stream's event source mapping that feeds the event dispatcher (stream.ts), the queues
// (queue.ts), SES's part (smtp.ts), the issuer (idp.ts), and, as the CDN serves them deployed,
// widget.js (web.ts) and the built dashboard at `/` (dashboard.ts). Nothing is wired twice: the
// routes, the handler files and the table definition are the ones the CDK stack deploys.

/** Path of the management API's endpoint on the stand-ins' port (API Gateway's is the stage URL over https). */
const MANAGEMENT_PATH = '/local-live';
const STREAM_POLL_MS = 75;
/** The lane of the background functions (a widget key never has this form). */
const BACKGROUND_LANE = 'background';
const DELIVERY_QUEUE_NAME = 'deliveries.fifo';
const INDEX_QUEUE_NAME = 'indexing';
const EMAIL_QUEUE_NAME = 'email';
const MAIL_BUCKET = 'mail';

export interface RuntimeOptions {
  port?: number;
  host?: string;
  /** Use this DynamoDB endpoint instead of starting DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Keep DynamoDB Local's data, the queues' messages and the stream reader's place in this folder between runs. */
  dataDir?: string;
  tableName?: string;
  /** Lets webhooks point at loopback http receivers (`--allow-loopback-webhooks`), for tests. */
  allowLoopbackWebhooks?: boolean;
  /** Loopback origins that webhooks and actions may call even without `allowLoopbackWebhooks` (the demo shop's). */
  loopbackOrigins?: string[];
  /**
   * `false`: the index queue's messages are taken and dropped, so the sentence encoder never loads
   * in this process. For tests of other features that run a runtime in their own process beside
   * the run's shared one: several encoders loading at once on two cores starve DynamoDB Local.
   */
  indexer?: boolean;
  /** Compresses the delivery queue's delays and visibility timeouts (tests); default env DELIVERY_TIME_SCALE, else 1. */
  deliveryTimeScale?: number;
  /**
   * The file of a handler module by its declared name (`chat/send-message`, `live/connect`);
   * default `functions/<name>.ts`. Tests point the live and stream handlers at their own.
   */
  resolveHandler?: (handler: string) => string;
  /** Seconds before an idle live connection is closed (default LIVE_IDLE_SECONDS, API Gateway's 10 minutes). */
  liveIdleSeconds?: number;
  /** How often the table's stream is polled, in milliseconds (default 75). */
  streamPollMs?: number;
  /** Read the table's stream and invoke the event dispatcher (default true; off for benchmarks that measure handlers alone). */
  stream?: boolean;
  /** How often expired items are deleted, as DynamoDB's TTL does (default 60 s; local/ttl.ts). */
  ttlSweepMs?: number;
  /**
   * Run DynamoDB's TTL (default true). Its stream reader shares the process's thread, where in AWS
   * it is no function's work: off for benchmarks that time handlers alone, with `stream: false`.
   */
  ttl?: boolean;
  /** Run the scheduled jobs (shared/edge/triggers.ts) on their intervals (default true). */
  schedule?: boolean;
  /** Serve the built dashboard at `/` (local/dashboard.ts). */
  dashboard?: DashboardOptions;
  /** The email that opens a seeded demo tenant: the sign-in page and the dashboard name it. */
  demoEmail?: string;
  /** The inbound SMTP server's port (default: a free one); `false` runs no mail servers. */
  smtpPort?: number | false;
  /** Take SPF/DKIM/DMARC verdicts from an `X-Local-Verdicts` header (tests; see smtp.ts). */
  trustVerdictHeader?: boolean;
  /**
   * Told of every handler invocation once it ends, with its wall time and the process's CPU time
   * meanwhile (which includes any other invocation running at once): what Lambda would bill.
   */
  onInvoke?: (handler: string, event: unknown, took: { ms: number; cpuMs: number }) => void;
  /** The port of the stand-ins for S3, SQS and the mail catcher's page (standins.ts; default: a free one). */
  standInsPort?: number;
  /**
   * Run the public chat routes in worker threads, one widget key to a lane (lanes.ts), and the
   * stream's, queues' and SES's functions in a lane of their own, so that one tenant's load does
   * not slow another's, as Lambda's sandboxes keep them apart: `true` for `defaultLaneCount()`
   * lanes, or how many. Off by default: tests that observe handlers in process (their clock,
   * handlers of their own) need them on the main thread. `onInvoke` is told of a lane's
   * invocations with the CPU time of the lane's thread, not the process's.
   */
  lanes?: boolean | number;
}

export interface LocalRuntime {
  url: string;
  port: number;
  idp: LocalIdp;
  dynamo: DynamoLocal | null;
  dynamodbEndpoint: string;
  /** The delivery queue's emulation, fed to functions/events/deliver.ts. */
  queue: LocalQueue;
  /** The index queue's emulation, fed to functions/events/index-content.ts. */
  indexQueue: LocalQueue;
  /** The live channel's URL (`ws://host:port/api/v1/live`), also in env LIVE_URL. */
  liveUrl: string;
  /** The management API's endpoint for `ApiGatewayManagementApiClient` (stand-ins' port, SigV4 only), also in env LIVE_ENDPOINT. */
  liveEndpoint: string;
  /** Ids of the open live connections. */
  liveConnections(): string[];
  /** Stream batches dropped after their retries, as Lambda's on-failure destination would get them. */
  streamFailures(): OnFailureRecord[];
  /** How many times the JWT verifier fetched the JWKS (a flood of unknown kids must not raise it per token). */
  jwksFetches(): number;
  /** Runs a scheduled job now (its handler, as the schedule would invoke it). */
  runJob(handler: string): Promise<unknown>;
  /** Deletes the expired items now, as DynamoDB's TTL would. */
  sweepExpired(): Promise<number>;
  /** The inbound SMTP server and the catcher of outgoing mail (null with `smtpPort: false`). */
  mail: LocalMail | null;
  /** The stand-in for S3 (the mail bucket). */
  objects: LocalObjects;
  /** The outgoing-mail queue's emulation, fed to functions/email/send.ts. */
  emailQueue: LocalQueue;
  /** Where the stand-ins for S3, SQS and the live management API and the caught mail are served: never this origin. */
  standInsUrl: string;
  /** The caught mail's page (JSON at `<mailUrl>/messages.json`), under a secret made at each start. */
  mailUrl: string;
  stop(): Promise<void>;
}

/**
 * A data folder kept before the delivery queue was FIFO holds the standard queue's messages: they
 * are sent to the FIFO queue in the order they were first sent (each starts its schedule again),
 * and the old file is set aside.
 */
function moveStandardDeliveries(file: string, queue: LocalQueue) {
  if (!existsSync(file)) return;
  try {
    const { messages = [] } = JSON.parse(readFileSync(file, 'utf8')) as {
      messages?: Array<{ body: string; sentAt: number }>;
    };
    for (const m of [...messages].sort((a, b) => a.sentAt - b.sentAt)) {
      const d = parseMessage(m.body);
      if (d)
        queue.serve(
          'AmazonSQS.SendMessage',
          JSON.stringify({ QueueUrl: queue.url, MessageBody: m.body, ...fifoFields(d) }),
        );
    }
  } catch (e) {
    console.warn(
      `local runtime: the old delivery queue ${file} could not be read (${(e as Error).message}); its messages are not moved`,
    );
  }
  renameSync(file, `${file}.moved`);
}

export async function startLocalRuntime(opts: RuntimeOptions = {}): Promise<LocalRuntime> {
  const tableName = opts.tableName ?? 'support-assistant-local';
  const dynamo = opts.dynamodbEndpoint ? null : await startDynamoLocal(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const dynamodbEndpoint = opts.dynamodbEndpoint ?? dynamo!.endpoint;
  const functions = createFunctions({
    ...(opts.resolveHandler ? { resolveHandler: opts.resolveHandler } : {}),
    ...(opts.onInvoke ? { onInvoke: opts.onInvoke } : {}),
  });
  const invoke = functions.invoke;
  const lanes = opts.lanes ? createLanes(opts.lanes === true ? undefined : opts.lanes, opts.onInvoke) : null;
  const here = inProcess((name) => functions.load(name) as Promise<ApiHandler>);
  // The functions behind the stream, the queues and SES: with lanes on, in a lane of their own, as
  // their own Lambda functions are in AWS, so their batches do not hold the API's thread.
  const backgroundInvoke: typeof invoke = (name, event, timeoutMs) =>
    lanes
      ? lanes.invoke(BACKGROUND_LANE, name, functions.file(name), event, timeoutMs)
      : invoke(name, event, timeoutMs);
  const consumer = (name: string) => async () =>
    (lanes
      ? (event: unknown, context?: Context) => backgroundInvoke(name, event, context?.getRemainingTimeInMillis())
      : await functions.load(name)) as unknown as SqsHandler;
  const api = createHttpApi(async (route, event) => {
    const key = lanes && route.auth === 'widget' ? event.headers['x-widget-key'] : undefined;
    if (!key) return here(route, event);
    return (await lanes!.invoke(
      key,
      route.handler,
      functions.file(route.handler),
      event,
    )) as APIGatewayProxyStructuredResultV2;
  });
  // The handlers read their configuration from the environment, as in Lambda.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    CURSOR_SECRET: process.env.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    LOCAL_DATA_KEY: process.env.LOCAL_DATA_KEY ?? randomBytes(32).toString('base64'),
    POWERTOOLS_SERVICE_NAME: process.env.POWERTOOLS_SERVICE_NAME ?? 'support-assistant-local',
    // The metric lines (embedded metric format) are for CloudWatch; locally they would only fill
    // the terminal and the test logs. POWERTOOLS_METRICS_DISABLED=false prints them.
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  });
  const created = await ensureTable(dynamodbEndpoint, tableName);

  let idp!: LocalIdp;
  let live: LiveGateway | null = null;
  const web = webAssets();
  let dashboard: ReturnType<typeof dashboardHandler> | null = null;

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('local runtime error', err);
      if (!res.headersSent) send(res, 500, '{"message":"Internal Server Error"}');
    });
  });

  // One port, as one domain serves them deployed: the HTTP API's routes, the issuer, widget.js and the dashboard.
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    if (api.cors(req, res, url, method)) return;
    if (web.handle(req, res, url, method)) return;
    const body = await readBody(req);
    if (body === null) return send(res, 413, '{"message":"Request Entity Too Large"}');

    if (url.pathname.startsWith('/local-idp/')) {
      const r = await idp.handle(method, url, req.headers['content-type'] ?? '', body);
      if (!r) return send(res, 404, '{"message":"Not Found"}');
      res.writeHead(r.status, r.headers);
      return res.end(r.body);
    }
    // The WebSocket API answers plain requests to its URL so, without reaching a function.
    if (live && url.pathname === LIVE_PATH)
      return send(res, 426, '{"message":"Upgrade Required"}', { upgrade: 'websocket' });

    if (await api.route(req, res, url, method, body)) return;
    if (dashboard && (await dashboard(method, url, res))) return;
    return send(res, 404, '{"message":"Not Found"}');
  }

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const url = `http://${host}:${port}`;
  const liveUrl = `ws://${host}:${port}${LIVE_PATH}`;
  // The functions sign their S3 and SQS calls with these (shared/core/config.ts); a second runtime
  // in the same process keeps the first one's, as the clients are made once.
  process.env.LOCAL_SECRET_ACCESS_KEY ??= newLocalCredentials().secretAccessKey;
  const standIns: StandIns = await startStandIns({
    ...(opts.standInsPort ? { port: opts.standInsPort } : {}),
    credentials: { accessKeyId: 'local', secretAccessKey: process.env.LOCAL_SECRET_ACCESS_KEY },
    objects: () => objects,
    queueOf: (text) => queueOf(text),
    mail: () => mail,
    managementPath: MANAGEMENT_PATH,
    live: () => live,
  });
  // The live handlers post through ApiGatewayManagementApiClient({ endpoint: LIVE_ENDPOINT }), signed
  // as IAM auth requires: on the stand-ins' port, never the API's, where any page could reach it.
  const liveEndpoint = `${standIns.url}${MANAGEMENT_PATH}`;
  Object.assign(process.env, { LIVE_URL: liveUrl, LIVE_ENDPOINT: liveEndpoint });

  // Until a handler file exists (the live channel is being built), its part stays off, said once.
  const missing = (handler: string) => {
    const file = functions.file(handler);
    if (existsSync(file)) return false;
    console.warn(`local runtime: ${handler} has no handler file (${file}); its part is off`);
    return true;
  };
  const socketHandler = (key: string) => liveRoutes.find((r) => r.routeKey === key)!.handler;
  const messageRoutes = liveRoutes
    .filter((r) => !r.routeKey.startsWith('$') && !missing(r.handler))
    .map((r) => r.routeKey);
  if (!missing(socketHandler('$connect'))) {
    const hasDisconnect = !missing(socketHandler('$disconnect'));
    live = createLiveGateway({
      path: LIVE_PATH,
      managementPath: MANAGEMENT_PATH,
      idleSeconds: opts.liveIdleSeconds ?? LIVE_IDLE_SECONDS,
      responseHeaders: CORS_HEADERS,
      messageRoutes,
      invoke: async (key, event) =>
        key === '$disconnect' && !hasDisconnect
          ? undefined
          : ((await invoke(socketHandler(key), event)) as SocketResult | undefined),
    });
  }
  server.on('upgrade', (req, socket, head) => {
    if (live) return live.upgrade(req, socket, head);
    socket.end(
      'HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 23\r\nconnection: close\r\n\r\n{"message":"Not Found"}',
    );
  });
  idp = await createLocalIdp(url, opts.demoEmail ? { demoEmail: opts.demoEmail } : {});
  const queue = createLocalQueue({
    name: DELIVERY_QUEUE_NAME,
    baseUrl: standIns.url,
    region: process.env.AWS_REGION,
    handler: consumer('events/deliver'),
    fifo: true,
    visibilityTimeoutSeconds: DELIVERY_QUEUE.visibilityTimeoutSeconds,
    maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
    batchSize: DELIVERY_QUEUE.batchSize,
    functionTimeoutSeconds: DELIVERY_QUEUE.functionTimeoutSeconds,
    timeScale: opts.deliveryTimeScale ?? Number(process.env.DELIVERY_TIME_SCALE ?? 1),
    // With --persist the queue is kept beside DynamoDB Local's data, so a delivery waiting out a retry survives a restart.
    ...(opts.dataDir ? { file: join(opts.dataDir, `queue-${DELIVERY_QUEUE_NAME}.json`) } : {}),
  });
  if (opts.dataDir) moveStandardDeliveries(join(opts.dataDir, 'queue-deliveries.json'), queue);
  const emailQueue = createLocalQueue({
    name: EMAIL_QUEUE_NAME,
    baseUrl: standIns.url,
    region: process.env.AWS_REGION,
    handler: consumer('email/send'),
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
    batchSize: 10,
    timeScale: opts.deliveryTimeScale ?? Number(process.env.DELIVERY_TIME_SCALE ?? 1),
    ...(opts.dataDir ? { file: join(opts.dataDir, `queue-${EMAIL_QUEUE_NAME}.json`) } : {}),
  });
  const objects = createLocalObjects(standIns.url, opts.dataDir ? join(opts.dataDir, 'objects') : undefined);
  // The index queue: tenants whose content the indexer embeds (the encoder loads in this process on first use).
  const indexQueue = createLocalQueue({
    name: INDEX_QUEUE_NAME,
    baseUrl: standIns.url,
    region: process.env.AWS_REGION,
    handler: () =>
      opts.indexer === false
        ? Promise.resolve((async () => ({ batchItemFailures: [] })) as unknown as SqsHandler)
        : consumer(INDEX_QUEUE.handler)(),
    visibilityTimeoutSeconds: INDEX_QUEUE.visibilityTimeoutSeconds,
    maxReceiveCount: INDEX_QUEUE.maxReceiveCount,
    batchSize: INDEX_QUEUE.batchSize,
    concurrency: 1,
    ...(opts.dataDir ? { file: join(opts.dataDir, `queue-${INDEX_QUEUE_NAME}.json`) } : {}),
  });
  // The export queue: tenant exports, written to the objects bucket one at a time.
  const exportQueue = createLocalQueue({
    name: 'exports',
    baseUrl: standIns.url,
    region: process.env.AWS_REGION,
    handler: consumer(EXPORT_QUEUE.handler),
    visibilityTimeoutSeconds: EXPORT_QUEUE.visibilityTimeoutSeconds,
    maxReceiveCount: EXPORT_QUEUE.maxReceiveCount,
    batchSize: EXPORT_QUEUE.batchSize,
    functionTimeoutSeconds: EXPORT_QUEUE.functionTimeoutSeconds,
    concurrency: 1,
    ...(opts.dataDir ? { file: join(opts.dataDir, 'queue-exports.json') } : {}),
  });
  /** The queue a request names (SQS JSON: `QueueUrl` in the body); the delivery queue by default. */
  const queueOf = (text: string): LocalQueue => {
    try {
      return (
        [indexQueue, emailQueue, exportQueue].find(
          (q) => q.url === (JSON.parse(text) as { QueueUrl?: unknown }).QueueUrl,
        ) ?? queue
      );
    } catch {
      return queue;
    }
  };
  Object.assign(process.env, {
    INDEX_QUEUE_URL: indexQueue.url,
    EXPORT_QUEUE_URL: exportQueue.url,
    S3_ENDPOINT: objects.endpoint,
    MAIL_BUCKET: MAIL_BUCKET,
    EMAIL_QUEUE_URL: emailQueue.url,
    SQS_ENDPOINT: queue.endpoint,
    DELIVERY_QUEUE_URL: queue.url,
    DASHBOARD_URL: process.env.DASHBOARD_URL ?? url,
    ...(opts.allowLoopbackWebhooks ? { ALLOW_LOOPBACK_WEBHOOKS: '1' } : {}),
    ...(opts.loopbackOrigins?.length ? { ALLOW_LOOPBACK_ORIGINS: opts.loopbackOrigins.join(',') } : {}),
  });
  if (opts.dashboard) {
    dashboard = dashboardHandler(
      opts.dashboard,
      {
        issuer: idp.issuer,
        clientId: idp.clientId,
        apiUrl: url,
        liveUrl,
        widgetOrigin: opts.dashboard.widgetOrigin ?? url,
        ...(opts.demoEmail ? { demoEmail: opts.demoEmail } : {}),
      },
      standIns.url,
    );
  }
  await api.authorizeWith(idp);

  let mail: LocalMail | null = null;
  if (opts.smtpPort !== false) {
    mail = await startLocalMail({
      invoke: backgroundInvoke,
      putObject: (key, raw) => objects.put(MAIL_BUCKET, key, raw, 'message/rfc822'),
      ...(opts.smtpPort ? { smtpPort: opts.smtpPort } : {}),
      trustVerdictHeader: opts.trustVerdictHeader ?? false,
    });
    process.env.SMTP_RELAY = `127.0.0.1:${mail.catcherPort}`;
  }

  let stream: StreamReader | null = null;
  if (opts.stream !== false && !missing(eventDispatcher.handler)) {
    stream = await startStreamReader({
      endpoint: dynamodbEndpoint,
      region: process.env.AWS_REGION!,
      tableName,
      trigger: eventDispatcher,
      invoke: (event) =>
        backgroundInvoke(eventDispatcher.handler, event, eventDispatcher.functionTimeoutSeconds * 1000),
      // A table made now is read from its start, so no write after this runtime started is missed.
      fromStart: created,
      pollMs: opts.streamPollMs ?? STREAM_POLL_MS,
      // With --persist the reader keeps its place beside the data, as the event source mapping does:
      // a restart, even after kill -9, goes on after the last batch handled.
      ...(opts.dataDir ? { checkpointFile: join(opts.dataDir, `stream-${tableName}.json`) } : {}),
    });
  }

  const ttl =
    opts.ttl === false
      ? null
      : await startTtlSweeper({
          endpoint: dynamodbEndpoint,
          region: process.env.AWS_REGION!,
          tableName,
          everyMs: opts.ttlSweepMs ?? 60_000,
          pollMs: opts.streamPollMs ?? STREAM_POLL_MS,
        });
  const runJob = (handler: string) =>
    invoke(
      handler,
      { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} },
      (scheduledJobs.find((j) => j.handler === handler)?.timeoutSeconds ?? 10) * 1000,
    );
  const jobTimers =
    opts.schedule === false
      ? []
      : scheduledJobs.map((job) => {
          const t = setInterval(() => {
            runJob(job.handler).catch(() => {});
          }, job.everyMinutes * 60_000);
          t.unref();
          return t;
        });

  return {
    url,
    port,
    idp,
    dynamo,
    dynamodbEndpoint,
    queue,
    indexQueue,
    liveUrl,
    liveEndpoint,
    runJob,
    sweepExpired: ttl?.sweep ?? (async () => 0),
    liveConnections: () => live?.connectionIds() ?? [],
    streamFailures: () => stream?.failures ?? [],
    jwksFetches: api.jwksFetches,
    mail,
    objects,
    emailQueue,
    standInsUrl: standIns.url,
    mailUrl: standIns.mailUrl,
    async stop() {
      await ttl?.stop();
      for (const t of jobTimers) clearInterval(t);
      await stream?.stop();
      await mail?.stop();
      await emailQueue.stop();
      await live?.close();
      await queue.stop();
      await indexQueue.stop();
      await exportQueue.stop();
      await standIns.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await lanes?.stop();
      await dynamo?.stop();
    },
  };
}
