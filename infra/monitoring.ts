import { Duration } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
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
  /** Messages visible in the delivery dead-letter queue. */
  deadLetters: 1,
} as const;

// The operations the service performs (no Scan); ThrottledRequests is reported per operation.
const TABLE_OPERATIONS = [
  Operation.GET_ITEM, Operation.BATCH_GET_ITEM, Operation.QUERY, Operation.PUT_ITEM, Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM, Operation.TRANSACT_WRITE_ITEMS, Operation.TRANSACT_GET_ITEMS,
];

export interface MonitoringProps {
  api: HttpApi;
  stage: HttpStage;
  functions: ReadonlyMap<string, ServiceFunction>;
  data: DataTable;
  /** The delivery queue's dead-letter queue. */
  deadLetters?: IQueue;
  alarmTopicArn?: string;
}

/**
 * Alarms, all on 5-minute periods:
 * - API: 5xx as a share of requests (a rate, so quiet hours do not page on one error).
 * - Lambda errors: one alarm per function, whose name says which route broke.
 * - Lambda throttles: aggregated by metric math (10 functions an alarm, CloudWatch's limit):
 *   throttling is a concurrency condition of the account, not of a route, so one signal is enough.
 * - DynamoDB: read+write throttle events of the table and each index, and ThrottledRequests
 *   across the operations the service uses.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const topic = props.alarmTopicArn ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn) : undefined;
    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string): Alarm => {
      const a = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      if (topic) a.addAlarmAction(new SnsAction(topic));
      this.alarms.push(a);
      return a;
    };

    const dims = { ApiId: props.api.apiId, Stage: props.stage.stageName };
    const apiMetric = (metricName: string) =>
      new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: dims, statistic: 'Sum', period: PERIOD });
    alarm('Api5xxRate', new MathExpression({
      expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
      usingMetrics: { errors: apiMetric('5xx'), requests: apiMetric('Count') },
      period: PERIOD,
      label: 'API 5xx %',
    }), ALARM_THRESHOLDS.api5xxPercent, `More than ${ALARM_THRESHOLDS.api5xxPercent}% of API requests answered 5xx in 5 minutes`);

    const fns = [...props.functions.entries()];
    for (const [handler, f] of fns) {
      alarm(`Errors${f.node.id}`, f.fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        ALARM_THRESHOLDS.lambdaErrors, `Function of ${handler} crashed or timed out`);
    }
    for (let i = 0; i < fns.length; i += METRICS_PER_ALARM) {
      const chunk = fns.slice(i, i + METRICS_PER_ALARM);
      const usingMetrics = Object.fromEntries(
        chunk.map(([, f], j) => [`t${j}`, f.fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
      );
      alarm(`Throttles${i / METRICS_PER_ALARM + 1}`, new MathExpression({
        expression: SUM_ALL,
        usingMetrics,
        period: PERIOD,
        label: 'Lambda throttles',
      }), ALARM_THRESHOLDS.lambdaThrottles, `Throttled invocations of: ${chunk.map(([h]) => h).join(', ')}`);
    }

    const tableName = props.data.table.tableName;
    const ddb = (metricName: string, extra: Record<string, string> = {}) => new Metric({
      namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: tableName, ...extra }, statistic: 'Sum', period: PERIOD,
    });
    const events: Record<string, IMetric> = { r: ddb('ReadThrottleEvents'), w: ddb('WriteThrottleEvents') };
    props.data.indexNames.forEach((name, i) => {
      events[`r${i}`] = ddb('ReadThrottleEvents', { GlobalSecondaryIndexName: name });
      events[`w${i}`] = ddb('WriteThrottleEvents', { GlobalSecondaryIndexName: name });
    });
    alarm('TableThrottleEvents', new MathExpression({
      expression: SUM_ALL, usingMetrics: events, period: PERIOD, label: 'DynamoDB throttle events',
    }), ALARM_THRESHOLDS.tableThrottles, 'DynamoDB read or write throttle events on the table or an index');

    const requests = Object.fromEntries(
      TABLE_OPERATIONS.map((op) => [op.toLowerCase(), ddb('ThrottledRequests', { Operation: op })]),
    );
    alarm('TableThrottledRequests', new MathExpression({
      expression: SUM_ALL, usingMetrics: requests, period: PERIOD, label: 'DynamoDB throttled requests',
    }), ALARM_THRESHOLDS.tableThrottles, 'DynamoDB requests throttled (any operation the service uses)');

    if (props.deadLetters) {
      alarm('DeliveryDeadLetters', props.deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        ALARM_THRESHOLDS.deadLetters, 'Delivery messages reached the dead-letter queue: the delivery function failed on them again and again');
    }
  }
}
