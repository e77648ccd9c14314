// AWS list prices, us-east-1, on-demand, without free tiers: the only place the cost benchmark
// reads a price from. Written from memory, then checked on 2026-11-28 against stored copies of AWS's
// pages (this machine has no network of its own); each price says what it was checked against:
//   page     AWS's own pricing page (or a worked example on it), as stored;
//   list     AWS's Price List API for us-east-1, as transcribed by a third party (date of its read);
//   unread   no copy of AWS's figure was found: from memory.
export const PRICES_READ = '2026-11-28 (checked against stored copies of AWS pricing pages; see prices.ts)';

export const PRICES = {
  /**
   * Lambda, arm64: per GB-second of duration (first tier), per request. Since Aug 2025 the init phase bills as duration too.
   * page: lambda/pricing (arm64 $0.0000133334, requests $0.20/M).
   */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** API Gateway HTTP API: per request (first 300 M a month), each 512 KB counting as one. page: api-gateway/pricing example. */
  httpRequest: 1.0 / 1e6,
  /** API Gateway WebSocket: per message (first 1 B, 32 KB each) and per connection-minute. page: connection-minutes; messages unread. */
  wsMessage: 1.0 / 1e6,
  wsConnectionMinute: 0.25 / 1e6,
  /**
   * DynamoDB on demand, after the November 2024 cut (halved from $1.25 and $0.25): per write and read request unit,
   * per GB-month stored. page: dynamodb/pricing/on-demand names the units and the cut, its figures unread.
   */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoGbMonth: 0.25,
  /** DynamoDB Streams read requests; free when the reader is a Lambda trigger (the only one here). Unread. */
  streamReadRequest: 0.02 / 100_000,
  /** SQS standard and FIFO: per request (64 KB each, page: sqs/features); FIFO is $0.50/M. Prices unread. */
  sqsRequest: 0.4 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
  /**
   * SES: per message sent, per message received, per 256 KB chunk received (every message at least one).
   * list (2026-07-22): since 2026-07-21 a new account is on the Essentials plan, $0.16 per 1,000 sent (0-10 M a
   * month; a la carte, $0.10, stays for accounts that sent since June 2025); received $0.10 per 1,000 and
   * $0.09 per 1,000 chunks on every plan. A team deploying this starts on Essentials: that price is used.
   */
  sesMessageOut: 0.16 / 1000,
  sesMessageIn: 0.1 / 1000,
  sesChunkIn: 0.09 / 1000,
  /** S3 Standard: per PUT and GET, per GB-month. Unread. */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
  /** CloudWatch Logs: per GB ingested (standard class), per GB-month archived. Unread. */
  logsIngestGb: 0.5,
  logsStoredGbMonth: 0.03,
  /** CloudWatch: per custom metric a month (first 10,000), per standard alarm a month. Unread. */
  metricMonth: 0.3,
  alarmMonth: 0.1,
  /** X-Ray: per trace recorded (after 100,000 free a month). Unread. */
  xrayTrace: 5.0 / 1e6,
  /** KMS: per request; per customer managed key a month. Unread. */
  kmsRequest: 0.03 / 10_000,
  kmsKeyMonth: 1.0,
  /** Secrets Manager: per secret a month. Unread. */
  secretMonth: 0.4,
  /** Provisioned concurrency, arm64: per GB-second provisioned, and the lower duration rate while it serves. Unread. */
  provisionedGbSecond: 0.0000033334,
  provisionedDurationGbSecond: 0.0000083334,
} as const;

/** What teams pay elsewhere, for the comparison (per resolution or per request, as each vendor bills). */
export const VENDORS = [
  { name: 'Intercom Fin', per: 'resolution', usd: 0.99 },
  { name: 'Zendesk automated resolution', per: 'resolution', usd: 1.5, upTo: 2.0 },
  { name: 'Amazon Lex (text request)', per: 'request', usd: 0.00075 },
] as const;
