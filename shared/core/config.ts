// Configuration read from the environment once, failing fast when something required is missing.

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
};

/**
 * What a client of DynamoDB Local signs with for `tableName`. DynamoDB Local keeps one database per
 * access key, and every call on a table's stream (and every write to the table) runs a query over
 * all the stream records of its database without an index, from the oldest on: a table that shares
 * a database with a busy one pays for every record of it (measured: ~90 ms a write after 30,000
 * records, against ~9 ms alone). So each table has a database of its own. With `-sharedDb`
 * (`npm start -- --persist`) DynamoDB Local ignores the key.
 */
export const localDatabaseCredentials = (tableName: string) => ({
  accessKeyId: `local${tableName.replace(/[^A-Za-z0-9]/g, '')}`,
  secretAccessKey: 'local',
});

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  /** Set only locally (DynamoDB Local); in AWS the SDK finds the regional endpoint. */
  get dynamodbEndpoint() {
    return process.env.DYNAMODB_ENDPOINT;
  },
  /** Ask DynamoDB for the capacity every call consumed (shared/data/client.ts sums it; the cost benchmark sets it). */
  get consumedCapacity() {
    return process.env.DYNAMODB_CONSUMED_CAPACITY === '1';
  },
  get region() {
    return process.env.AWS_REGION ?? 'us-east-1';
  },
  /** Signs pagination cursors. In AWS: derived per deployment (see infra); locally: generated at start. */
  get cursorSecret() {
    return required('CURSOR_SECRET');
  },
  /** KMS key for integration credentials; absent locally, where LOCAL_DATA_KEY (base64, 32 bytes) is used. */
  get kmsKeyId() {
    return process.env.KMS_KEY_ID;
  },
  get localDataKey() {
    return process.env.LOCAL_DATA_KEY;
  },
  /** Local runtime only: lets webhook URLs point at loopback for its own tests (`1` or `true`). */
  get allowLoopbackWebhooks() {
    return ['1', 'true'].includes(process.env.ALLOW_LOOPBACK_WEBHOOKS ?? '');
  },
  /** Local runtime only: loopback origins that may be called anyway (`npm start`'s demo shop), comma-separated. */
  get loopbackOrigins() {
    return (process.env.ALLOW_LOOPBACK_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
  },
  /** The queue that carries one message per delivery (at least once, on the retry schedule). */
  get deliveryQueueUrl() {
    return required('DELIVERY_QUEUE_URL');
  },
  /** The queue of tenants whose content the indexer embeds (shared/data/index-queue.ts). */
  get indexQueueUrl() {
    return required('INDEX_QUEUE_URL');
  },
  /** The queue of tenant exports to write (shared/data/exports.ts). */
  get exportQueueUrl() {
    return required('EXPORT_QUEUE_URL');
  },
  /** Set only locally (the local runtime's SQS emulation). */
  get sqsEndpoint() {
    return process.env.SQS_ENDPOINT;
  },
  /** Base of the dashboard's links (Slack messages); absent: messages carry no link. */
  get dashboardUrl() {
    return process.env.DASHBOARD_URL;
  },
  /** How long a receiver has to answer; tests shorten it, the stack never sets it. */
  get deliveryTimeoutMs() {
    const n = Number(process.env.DELIVERY_TIMEOUT_MS);
    return Number.isInteger(n) && n > 0 ? n : 15_000;
  },
  /** The live channel's URL for clients (wss:// in AWS, ws:// locally); given to the widget. */
  get liveUrl() {
    return process.env.LIVE_URL ?? null;
  },
  /** The WebSocket API's management endpoint, where the dispatcher posts frames. */
  get liveEndpoint() {
    return required('LIVE_ENDPOINT');
  },
  /** The domain of the tenants' inbound addresses (`<slug>@<domain>`); the stack sets it, locally `mail.localhost`. */
  get inboundDomain() {
    return (process.env.EMAIL_INBOUND_DOMAIN ?? 'mail.localhost').toLowerCase();
  },
  /** The bucket of inbound mail (SES stores each message under `inbound/`) and of attachments. */
  get mailBucket() {
    return required('MAIL_BUCKET');
  },
  /** Set only locally: the runtime's stand-in for S3 (local/objects.ts). */
  get s3Endpoint() {
    return process.env.S3_ENDPOINT;
  },
  /** Locally, what the S3 and SQS clients sign with: the stand-ins refuse anything else (local/sigv4.ts). */
  get localCredentials() {
    return { accessKeyId: 'local', secretAccessKey: required('LOCAL_SECRET_ACCESS_KEY') };
  },
  /** The queue the outbox's outgoing mail goes through to the sender function. */
  get emailQueueUrl() {
    return required('EMAIL_QUEUE_URL');
  },
  /** Set only locally: outgoing mail goes by SMTP to this `host:port` (the catcher) instead of SES. */
  get smtpRelay() {
    return process.env.SMTP_RELAY;
  },
  /** SES configuration set whose events (delivery, bounce, complaint) come back through SNS and SQS. */
  get sesConfigurationSet() {
    return process.env.SES_CONFIGURATION_SET;
  },
};
