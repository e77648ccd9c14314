import { Duration } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from '#shared/core/metric-names.ts';
import type { ServiceFunction } from './function.ts';
import type { DataTable } from './table.ts';

const PERIOD = Duration.minutes(5);
// CloudWatch allows at most 10 metrics in the math expression of one alarm.
const METRICS_PER_ALARM = 10;
// Throttle metrics have no datapoint in quiet periods; FILL keeps one silent series from
// blanking the sum of the others.
const SUM_ALL = 'SUM(FILL(METRICS(), 0))';

export const ALARM_THRESHOLDS = {
  /** Percent of requests answered 5xx (by a function or by the gateway) in 5 minutes. */
  api5xxPercent: 5,
  /** Invocations that crashed or timed out (handled errors answer 500 and count in the 5xx rate). */
  lambdaErrors: 1,
  lambdaThrottles: 1,
  tableThrottles: 1,
  /** Messages waiting in a dead-letter queue: each one is work that failed every retry. */
  deadLetters: 1,
  /** Requests a function answered 500 (a bug, logged with its request id): the first one. */
  serverErrors: 1,
  /**
   * Deliveries given up in 5 minutes. One tenant's receiver being down fails its own deliveries
   * one by one; several at once point at our side (signing, network, Slack).
   */
  deliveriesFailed: 5,
} as const;

// The operations the service performs (no Scan); ThrottledRequests is reported per operation.
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

/** A custom metric of shared/core/metric-names.ts, as the functions emit it (embedded metric format). */
export const serviceMetric = (metricName: string): Metric =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic: 'Sum',
    period: PERIOD,
  });

/** Makes the alarms of one scope, each notifying the topic when there is one. */
class Alarms extends Construct {
  readonly alarms: Alarm[] = [];
  private readonly topic?: ReturnType<typeof Topic.fromTopicArn>;

  constructor(scope: Construct, id: string, alarmTopicArn?: string) {
    super(scope, id);
    if (alarmTopicArn) this.topic = Topic.fromTopicArn(this, 'AlarmTopic', alarmTopicArn);
  }

  protected alarm(alarmId: string, metric: IMetric, threshold: number, description: string): Alarm {
    const a = new Alarm(this, alarmId, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    if (this.topic) a.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(a);
    return a;
  }
}

export interface FunctionAlarmsProps {
  /** The functions of one stack, by handler path. */
  functions: ReadonlyMap<string, ServiceFunction>;
  alarmTopicArn?: string;
}

/**
 * The alarms of the functions of one stack, made in that stack, beside the functions:
 * - Lambda errors: one alarm per function, whose name says which route broke. An alarm is one
 *   resource, and it lives in its function's stack, so it adds one resource to that stack per route
 *   and none to the others (one Monitoring stack holding them all would also need every function
 *   name as a parameter, and CloudFormation allows 200).
 * - Lambda throttles: aggregated by metric math (10 functions an alarm, CloudWatch's limit):
 *   throttling is a concurrency condition of the account, not of a route, so one signal is enough.
 */
export class FunctionAlarms extends Alarms {
  constructor(scope: Construct, id: string, props: FunctionAlarmsProps) {
    super(scope, id, props.alarmTopicArn);
    const fns = [...props.functions.entries()];
    for (const [handler, f] of fns) {
      this.alarm(
        `Errors${f.node.id}`,
        f.fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        ALARM_THRESHOLDS.lambdaErrors,
        `Function of ${handler} crashed or timed out`,
      );
    }
    for (let i = 0; i < fns.length; i += METRICS_PER_ALARM) {
      const chunk = fns.slice(i, i + METRICS_PER_ALARM);
      const usingMetrics = Object.fromEntries(
        chunk.map(([, f], j) => [`t${j}`, f.fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
      );
      this.alarm(
        `Throttles${i / METRICS_PER_ALARM + 1}`,
        new MathExpression({
          expression: SUM_ALL,
          usingMetrics,
          period: PERIOD,
          label: 'Lambda throttles',
        }),
        ALARM_THRESHOLDS.lambdaThrottles,
        `Throttled invocations of: ${chunk.map(([h]) => h).join(', ')}`,
      );
    }
  }
}

export interface MonitoringProps {
  api: HttpApi;
  stage: HttpStage;
  data: DataTable;
  /** Dead-letter queues by a name for the alarm (`Events`). */
  deadLetters?: Readonly<Record<string, IQueue>>;
  alarmTopicArn?: string;
}

/**
 * The service's alarms, all on 5-minute periods (the functions' own are FunctionAlarms):
 * - API: 5xx as a share of requests (a rate, so quiet hours do not page on one error).
 * - ServerErrors and DeliveriesFailed, the failure metrics the functions emit in embedded metric
 *   format (shared/core/metric-names.ts: namespace, `service` dimension and names read from there,
 *   so a renamed metric cannot leave its alarm watching nothing).
 * - DynamoDB: read+write throttle events of the table and each index, and ThrottledRequests
 *   across the operations the service uses.
 * - Dead letters: any message visible in a dead-letter queue.
 */
export class Monitoring extends Alarms {
  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id, props.alarmTopicArn);

    const dims = { ApiId: props.api.apiId, Stage: props.stage.stageName };
    const apiMetric = (metricName: string) =>
      new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: dims, statistic: 'Sum', period: PERIOD });
    this.alarm(
      'Api5xxRate',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
        usingMetrics: { errors: apiMetric('5xx'), requests: apiMetric('Count') },
        period: PERIOD,
        label: 'API 5xx %',
      }),
      ALARM_THRESHOLDS.api5xxPercent,
      `More than ${ALARM_THRESHOLDS.api5xxPercent}% of API requests answered 5xx in 5 minutes`,
    );

    this.alarm(
      'ServerErrors',
      serviceMetric(METRIC.serverErrors),
      ALARM_THRESHOLDS.serverErrors,
      "A function answered 500: a bug, logged with its request id (the function's log group says which route)",
    );
    this.alarm(
      'DeliveriesFailed',
      serviceMetric(METRIC.deliveriesFailed),
      ALARM_THRESHOLDS.deliveriesFailed,
      `${ALARM_THRESHOLDS.deliveriesFailed} or more event deliveries given up after every retry in 5 minutes`,
    );

    const tableName = props.data.table.tableName;
    const ddb = (metricName: string, extra: Record<string, string> = {}) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: tableName, ...extra },
        statistic: 'Sum',
        period: PERIOD,
      });
    const events: Record<string, IMetric> = { r: ddb('ReadThrottleEvents'), w: ddb('WriteThrottleEvents') };
    props.data.indexNames.forEach((name, i) => {
      events[`r${i}`] = ddb('ReadThrottleEvents', { GlobalSecondaryIndexName: name });
      events[`w${i}`] = ddb('WriteThrottleEvents', { GlobalSecondaryIndexName: name });
    });
    this.alarm(
      'TableThrottleEvents',
      new MathExpression({
        expression: SUM_ALL,
        usingMetrics: events,
        period: PERIOD,
        label: 'DynamoDB throttle events',
      }),
      ALARM_THRESHOLDS.tableThrottles,
      'DynamoDB read or write throttle events on the table or an index',
    );

    const requests = Object.fromEntries(
      TABLE_OPERATIONS.map((op) => [op.toLowerCase(), ddb('ThrottledRequests', { Operation: op })]),
    );
    this.alarm(
      'TableThrottledRequests',
      new MathExpression({
        expression: SUM_ALL,
        usingMetrics: requests,
        period: PERIOD,
        label: 'DynamoDB throttled requests',
      }),
      ALARM_THRESHOLDS.tableThrottles,
      'DynamoDB requests throttled (any operation the service uses)',
    );

    for (const [name, queue] of Object.entries(props.deadLetters ?? {})) {
      // Maximum, not Sum: the metric is a level sampled each minute, not a count of arrivals.
      this.alarm(
        `DeadLetters${name}`,
        queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        ALARM_THRESHOLDS.deadLetters,
        `${name}: records that failed every retry are waiting in the dead-letter queue`,
      );
    }
  }
}
