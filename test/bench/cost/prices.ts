// AWS list prices, us-east-1, on-demand, without free tiers: the only place the cost benchmark
// reads a price from. As published, read from memory on 2026-11-28 (this machine has no network):
// check them against https://aws.amazon.com/pricing/ before relying on a figure.
export const PRICES_READ = '2026-11-28 (as published, read from memory; check before relying)';

export const PRICES = {
  /** Lambda, arm64: per GB-second of duration (first tier), per request. Since Aug 2025 the init phase bills as duration too. */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** API Gateway HTTP API: per request (first 300 M a month), each 512 KB counting as one. */
  httpRequest: 1.0 / 1e6,
  /** API Gateway WebSocket: per message (first 1 B, 32 KB each) and per connection-minute. */
  wsMessage: 1.0 / 1e6,
  wsConnectionMinute: 0.25 / 1e6,
  /** DynamoDB on demand, after the November 2024 cut: per write and read request unit, per GB-month stored. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoGbMonth: 0.25,
  /** DynamoDB Streams read requests; free when the reader is a Lambda trigger (the only one here). */
  streamReadRequest: 0.02 / 100_000,
  /** SQS standard and FIFO: per request (64 KB each); FIFO is $0.50/M. */
  sqsRequest: 0.4 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
  /** SES: per message sent, per message received, per 256 KB chunk received. */
  sesMessageOut: 0.1 / 1000,
  sesMessageIn: 0.1 / 1000,
  sesChunkIn: 0.09 / 1000,
  /** S3 Standard: per PUT and GET, per GB-month. */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
  /** CloudWatch Logs: per GB ingested (standard class), per GB-month archived. */
  logsIngestGb: 0.5,
  logsStoredGbMonth: 0.03,
  /** CloudWatch: per custom metric a month (first 10,000), per standard alarm a month. */
  metricMonth: 0.3,
  alarmMonth: 0.1,
  /** X-Ray: per trace recorded (after 100,000 free a month). */
  xrayTrace: 5.0 / 1e6,
  /** KMS: per request; per customer managed key a month. */
  kmsRequest: 0.03 / 10_000,
  kmsKeyMonth: 1.0,
  /** Secrets Manager: per secret a month. */
  secretMonth: 0.4,
  /** Provisioned concurrency, arm64: per GB-second provisioned, and the lower duration rate while it serves. */
  provisionedGbSecond: 0.0000033334,
  provisionedDurationGbSecond: 0.0000083334,
} as const;

/** What teams pay elsewhere, for the comparison (per resolution or per request, as each vendor bills). */
export const VENDORS = [
  { name: 'Intercom Fin', per: 'resolution', usd: 0.99 },
  { name: 'Zendesk automated resolution', per: 'resolution', usd: 1.5, upTo: 2.0 },
  { name: 'Amazon Lex (text request)', per: 'request', usd: 0.00075 },
] as const;
