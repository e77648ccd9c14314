import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '#shared/core/config.ts';

// The delivery queue (SQS): one message per delivery run. Locally the runtime emulates SQS's JSON
// protocol (bin/local/queue.ts), so this very client talks to it.

export interface DeliveryMessage { tenantId: string; integrationId: string; deliveryId: string; run: number }

/** SQS limits: a message delay of at most 15 minutes, a visibility timeout of at most 12 hours. */
export const MAX_DELAY_SECONDS = 900;
export const MAX_VISIBILITY_SECONDS = 43_200;

let client: SQSClient | undefined;
const sqs = () => (client ??= new SQSClient({
  region: config.region,
  ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  maxAttempts: 3,
}));

export const deliveryQueue = {
  async send(m: DeliveryMessage, delaySeconds = 0): Promise<void> {
    await sqs().send(new SendMessageCommand({
      QueueUrl: config.deliveryQueueUrl,
      MessageBody: JSON.stringify(m),
      // The tenant as message group makes the standard queue a fair queue: a tenant whose
      // endpoints are slow or failing builds a backlog of its own, and the others' wait stays short.
      MessageGroupId: m.tenantId,
      DelaySeconds: Math.min(delaySeconds, MAX_DELAY_SECONDS),
    }));
  },

  /** The received message comes back after `seconds` (the caller reports it as a batch item failure). */
  async retryAfter(receiptHandle: string, seconds: number): Promise<void> {
    await sqs().send(new ChangeMessageVisibilityCommand({
      QueueUrl: config.deliveryQueueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: Math.min(seconds, MAX_VISIBILITY_SECONDS),
    }));
  },
};

export function parseMessage(body: string): DeliveryMessage | null {
  try {
    const m = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok = typeof m.tenantId === 'string' && typeof m.integrationId === 'string' && typeof m.deliveryId === 'string'
      && Number.isInteger(m.run);
    return ok ? m as DeliveryMessage : null;
  } catch {
    return null;
  }
}

/** One outgoing email to send (consumer: functions/email/send.ts). */
export interface EmailMessage { tenantId: string; conversationId: string; messageId: string }

export const emailQueue = {
  async send(m: EmailMessage): Promise<void> {
    await sqs().send(new SendMessageCommand({ QueueUrl: config.emailQueueUrl, MessageBody: JSON.stringify(m), MessageGroupId: m.tenantId }));
  },
};

export function parseEmailMessage(body: string): EmailMessage | null {
  try {
    const m = JSON.parse(body) as Partial<EmailMessage>;
    return typeof m.tenantId === 'string' && typeof m.conversationId === 'string' && typeof m.messageId === 'string' ? m as EmailMessage : null;
  } catch {
    return null;
  }
}
