import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StreamTrigger } from '#shared/http/triggers.ts';
import type { ServiceFunction } from './function.ts';
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
    const why = 'This queue is itself a dead-letter destination (the stream mapping\'s on-failure records); nothing consumes it to fail again, and its alarm fires on the first message.';
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason: why });
    Validations.of(this.deadLetters).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: why });
    props.dispatcher.fn.addEventSource(new DynamoEventSource(props.data.table, {
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
    }));
  }
}
