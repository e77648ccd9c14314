import { Duration, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_QUEUE, EXPORT_QUEUE, INDEX_QUEUE, type StreamTrigger } from '#shared/edge/triggers.ts';
import { bindKey, bindTable, ServiceFunction } from './function.ts';
import type { DataTable } from './table.ts';

export interface EventStreamProps {
  data: DataTable;
  dispatcher: ServiceFunction;
  trigger: StreamTrigger;
}

/**
 * The table's stream, filtered to event items, feeding the dispatcher. A record that still fails
 * after the trigger's retries is described in the dead-letter queue (shard and sequence numbers,
 * not the event): the event item stays in the table a day, long enough to replay it.
 */
export class EventStream extends Construct {
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: EventStreamProps) {
    super(scope, id);
    const { trigger } = props;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS keeps a message: time to look into a failure after the alarm.
      retentionPeriod: Duration.days(14),
    });
    const why =
      "This queue is itself a dead-letter destination (the stream mapping's on-failure records); nothing consumes it to fail again, and its alarm fires on the first message.";
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason: why });
    Validations.of(this.deadLetters).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: why });
    props.dispatcher.fn.addEventSource(
      new DynamoEventSource(props.data.table, {
        // TRIM_HORIZON, not LATEST: a new mapping (first deploy, or one replaced) starts from the
        // oldest record still in the stream, so an event written before the mapping began is
        // dispatched late rather than never. Events are delivered at least once, with stable ids.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: trigger.batchSize,
        retryAttempts: trigger.retryAttempts,
        // A failing record is retried alone (bisecting) and reported by the handler
        // (batchItemFailures), so the records before it are not sent twice.
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        filters: [FilterCriteria.filter(trigger.filter)],
        onFailure: new SqsDlq(this.deadLetters),
      }),
    );
  }
}

export interface DeliveriesProps {
  data: DataTable;
  credentialsKey: IKey;
  /** Absolute path of functions/events/deliver.ts. */
  entry: string;
  projectRoot: string;
  logRetention: RetentionDays;
  /** Base URL of the dashboard, for links in Slack messages. */
  dashboardUrl?: string;
}

/**
 * Events out: the delivery queue, its dead-letter queue with an alarm, and the delivery function fed
 * by it (the dead-letter alarm is in Monitoring, with the others). The queue is FIFO with one message
 * group per endpoint: an endpoint's deliveries arrive in order, one at a time. A failed attempt keeps
 * its message and sets its visibility to the next step of the retry schedule (at most 10 h, under
 * SQS's 12 h), which holds the endpoint's later deliveries behind it; one message carries a delivery
 * through all its attempts. High-throughput FIFO (limits per message group) keeps endpoints apart.
 */
export class Deliveries extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fn: ServiceFunction;

  constructor(scope: Construct, id: string, props: DeliveriesProps) {
    super(scope, id);
    // A FIFO queue's dead-letter queue is FIFO too.
    this.deadLetters = new Queue(this, 'DeadLetters', {
      fifo: true,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: false,
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(DELIVERY_QUEUE.visibilityTimeoutSeconds),
      // A delivery behind others of its endpoint waits for theirs: more than one schedule (about 27.6 h).
      retentionPeriod: Duration.days(DELIVERY_QUEUE.retentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount },
    });

    this.fn = new ServiceFunction(this, 'Deliver', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      logRetention: props.logRetention,
      description: 'Delivers events to webhooks and Slack',
      timeout: Duration.seconds(DELIVERY_QUEUE.functionTimeoutSeconds),
      environment: {
        DELIVERY_QUEUE_URL: this.queue.queueUrl,
        ...(props.dashboardUrl ? { DASHBOARD_URL: props.dashboardUrl } : {}),
      },
    });
    bindTable(this.fn, props.data, 'write');
    // It only opens credentials, never seals new ones.
    bindKey(this.fn, props.credentialsKey, ['kms:Decrypt']);
    // Receive, delete and change visibility on this queue (the event source's own grant).
    this.fn.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: DELIVERY_QUEUE.batchSize,
        reportBatchItemFailures: true,
      }),
    );

    acknowledgeQueueConsumer(this.fn);
    Validations.of(this.deadLetters).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue of the delivery queue: its messages are kept 14 days for inspection and alarm while visible; nothing consumes it.',
    });
  }

  /** Lets a function queue deliveries (the dispatcher, redeliver, test). */
  grantEnqueue(f: ServiceFunction): void {
    f.fn.addEnvironment('DELIVERY_QUEUE_URL', this.queue.queueUrl);
    this.queue.grantSendMessages(f.role);
  }
}

export interface IndexingProps {
  data: DataTable;
  /** Absolute path of functions/events/index-content.ts. */
  entry: string;
  projectRoot: string;
  logRetention: RetentionDays;
}

/**
 * The index queue and the indexer fed by it: tenants whose content changed, embedded in the
 * background (the encoder's weights ship with this function). A pass that runs out of time queues
 * its tenant again itself; a failing one is retried by the queue, then dead-lettered (alarmed in
 * Monitoring).
 */
export class Indexing extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fn: ServiceFunction;

  constructor(scope: Construct, id: string, props: IndexingProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(INDEX_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: INDEX_QUEUE.maxReceiveCount },
    });
    this.fn = new ServiceFunction(this, 'Index', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      logRetention: props.logRetention,
      description: "Embeds tenants' content (sentence vectors) after it changes",
      timeout: Duration.seconds(INDEX_QUEUE.functionTimeoutSeconds),
      encoder: true,
      environment: { INDEX_QUEUE_URL: this.queue.queueUrl },
    });
    bindTable(this.fn, props.data, 'write');
    // It queues a tenant again when its pass ran out of time.
    this.queue.grantSendMessages(this.fn.role);
    this.fn.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: INDEX_QUEUE.batchSize, reportBatchItemFailures: true }),
    );

    acknowledgeQueueConsumer(this.fn);
    Validations.of(this.deadLetters).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue of the index queue: its messages are kept 14 days for inspection and alarm while visible; nothing consumes it.',
    });
  }

  /** Lets a function queue tenants for indexing (the dispatcher). */
  grantEnqueue(f: ServiceFunction): void {
    f.fn.addEnvironment('INDEX_QUEUE_URL', this.queue.queueUrl);
    this.queue.grantSendMessages(f.role);
  }
}

/** The export queue and the function fed by it: tenant exports, one job per message (POST /admin/tenant/export). */
export class Exports extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fn: ServiceFunction;

  constructor(scope: Construct, id: string, props: IndexingProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(EXPORT_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(1),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: EXPORT_QUEUE.maxReceiveCount },
    });
    this.fn = new ServiceFunction(this, 'Export', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      logRetention: props.logRetention,
      description: "Writes a tenant's export (JSON lines) to the objects bucket",
      timeout: Duration.seconds(EXPORT_QUEUE.functionTimeoutSeconds),
    });
    bindTable(this.fn, props.data, 'write');
    this.fn.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: EXPORT_QUEUE.batchSize, reportBatchItemFailures: true }),
    );
    acknowledgeQueueConsumer(this.fn);
    Validations.of(this.deadLetters).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue of the export queue: its messages are kept 14 days for inspection and alarm while visible; nothing consumes it.',
    });
  }

  /** Lets a function queue exports (the export route). */
  grantEnqueue(f: ServiceFunction): void {
    f.fn.addEnvironment('EXPORT_QUEUE_URL', this.queue.queueUrl);
    this.queue.grantSendMessages(f.role);
  }
}

/**
 * What cdk-nag asks of a function whose only trigger is an SQS event source: X-Ray's actions on
 * Resource *, and no on-failure destination of its own (the queue's redrive policy dead-letters).
 */
export function acknowledgeQueueConsumer(f: ServiceFunction): void {
  Validations.of(f.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) are on Resource *: those X-Ray actions support no resource-level permissions.',
  });
  for (const esm of f.fn.node.findAll().filter((c) => c.node.id.startsWith('SqsEventSource'))) {
    Validations.of(esm).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "An SQS event source mapping takes no on-failure destination: failed messages go to the queue's own dead-letter queue after maxReceiveCount receives.",
    });
  }
  Validations.of(f.fn).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      "Invoked only by its SQS event source: failed messages are dead-lettered by the queue's redrive policy (maxReceiveCount), which alarms.",
  });
}
