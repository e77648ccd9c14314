import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '#shared/core/config.ts';

// The delivery queue (SQS FIFO): one message per delivery run, grouped by endpoint (integration),
// so an endpoint gets its deliveries in the order they were queued, one at a time, and a delivery
// waiting out a retry holds the endpoint's later ones. Locally the runtime emulates SQS's JSON
// protocol (local/queue.ts), so this very client talks to it.

export interface DeliveryMessage {
  tenantId: string;
  integrationId: string;
  deliveryId: string;
  run: number;
  /** A test ping: its own group, so it says whether the endpoint answers now, not after the endpoint's backlog. */
  ping?: true;
}

/** SQS's limit: a visibility timeout of at most 12 hours. */
export const MAX_VISIBILITY_SECONDS = 43_200;

let client: SQSClient | undefined;
/** The one SQS client (the delivery queue's and the index queue's). */
export const sqs = () =>
  (client ??= new SQSClient({
    region: config.region,
    ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint, credentials: config.localCredentials } : {}),
    maxAttempts: 3,
  }));

/**
 * A delivery message's FIFO fields: the endpoint's message group (its order, and its backlog, are
 * its own) and the run as deduplication id (a fan-out retried within 5 minutes queues it once;
 * deduplication is per group).
 */
export const fifoFields = (m: DeliveryMessage) => ({
  MessageGroupId: `${m.tenantId}/${m.integrationId}${m.ping ? '/ping' : ''}`,
  MessageDeduplicationId: `${m.deliveryId}/${m.run}`,
});

export const deliveryQueue = {
  async send(m: DeliveryMessage): Promise<void> {
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: config.deliveryQueueUrl,
        MessageBody: JSON.stringify(m),
        ...fifoFields(m),
      }),
    );
  },

  /** The received message comes back after `seconds` (the caller reports it as a batch item failure). */
  async retryAfter(receiptHandle: string, seconds: number): Promise<void> {
    await sqs().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: config.deliveryQueueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(seconds, MAX_VISIBILITY_SECONDS),
      }),
    );
  },
};

export function parseMessage(body: string): DeliveryMessage | null {
  try {
    const m = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok =
      typeof m.tenantId === 'string' &&
      typeof m.integrationId === 'string' &&
      typeof m.deliveryId === 'string' &&
      Number.isInteger(m.run);
    return ok ? (m as DeliveryMessage) : null;
  } catch {
    return null;
  }
}

/** One outgoing email to send (consumer: functions/email/send.ts): a conversation's message, or a member's invitation. */
export interface ReplyEmail {
  tenantId: string;
  conversationId: string;
  messageId: string;
}
export interface InvitationEmail {
  tenantId: string;
  invitationId: string;
}
export type EmailMessage = ReplyEmail | InvitationEmail;

export const emailQueue = {
  async send(m: EmailMessage): Promise<void> {
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: config.emailQueueUrl,
        MessageBody: JSON.stringify(m),
        MessageGroupId: m.tenantId,
      }),
    );
  },
};

export function parseEmailMessage(body: string): EmailMessage | null {
  try {
    const m = JSON.parse(body) as Partial<ReplyEmail & InvitationEmail>;
    if (typeof m.tenantId !== 'string') return null;
    if (typeof m.invitationId === 'string') return { tenantId: m.tenantId, invitationId: m.invitationId };
    return typeof m.conversationId === 'string' && typeof m.messageId === 'string' ? (m as ReplyEmail) : null;
  } catch {
    return null;
  }
}
