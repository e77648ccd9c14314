import { logger } from '#shared/core/log.ts';
import type { EmailDeliveryStatus } from '#shared/core/vocabulary.ts';
import { emailRepo } from '#shared/data/email.ts';
import { transact } from '#shared/data/tx.ts';
import { events } from '#shared/domain/events.ts';
import { clock } from '#shared/core/clock.ts';

// SES's events for what we sent (configuration set -> SNS -> SQS -> functions/email/events.ts):
// each moves its message's delivery status forward; a hard bounce or a complaint also suppresses the
// address for the tenant and emits `email.bounced`. The message is named by the tags the sender set.

interface SesEvent {
  eventType?: string;
  notificationType?: string;
  mail?: { tags?: Record<string, string[]> };
  bounce?: { bounceType?: string; bouncedRecipients?: Array<{ emailAddress?: string }> };
  complaint?: { complainedRecipients?: Array<{ emailAddress?: string }> };
}

const ID = /^[A-Za-z0-9_.@-]{1,100}$/;

/** An SNS notification (or its raw message) carrying an SES event. */
export async function handleSesEvent(body: string): Promise<void> {
  let e: SesEvent;
  try {
    const outer = JSON.parse(body) as { Type?: string; Message?: string };
    e = (
      outer.Type === 'Notification' && typeof outer.Message === 'string' ? JSON.parse(outer.Message) : outer
    ) as SesEvent;
  } catch {
    logger.warn('SES event is not JSON; dropped');
    return;
  }
  const tag = (k: string) => e.mail?.tags?.[k]?.[0];
  const [tenantId, conversationId, messageId] = [tag('tenant'), tag('conversation'), tag('message')];
  if (![tenantId, conversationId, messageId].every((v) => v && ID.test(v))) return;
  const type = e.eventType ?? e.notificationType;
  const permanent = type === 'Bounce' && e.bounce?.bounceType === 'Permanent';
  const status: EmailDeliveryStatus | null =
    type === 'Delivery' ? 'delivered' : permanent ? 'bounced' : type === 'Complaint' ? 'complained' : null;
  if (!status) return;
  const who = (status === 'bounced' ? e.bounce?.bouncedRecipients : e.complaint?.complainedRecipients) ?? [];
  await settleDelivery(
    { tenantId: tenantId!, conversationId: conversationId!, messageId: messageId! },
    status,
    who.flatMap((r) => (r.emailAddress ? [r.emailAddress] : [])),
  );
}

/**
 * Moves a sent message's status forward; a bounce or a complaint (from SES's events, or a recipient
 * refused when sending) also suppresses each address for the tenant and emits `email.bounced`, once.
 */
export async function settleDelivery(
  m: { tenantId: string; conversationId: string; messageId: string },
  status: EmailDeliveryStatus,
  recipients: string[] = [],
  reason?: string,
): Promise<void> {
  const now = clock.iso();
  const moved = await emailRepo.setDelivery(m.tenantId, m.conversationId, m.messageId, status, now, reason);
  if (!moved || (status !== 'bounced' && status !== 'complained')) return;
  const kind = status === 'bounced' ? ('bounce' as const) : ('complaint' as const);
  const addresses = [...new Set(recipients.map((a) => a.toLowerCase()))];
  await transact(
    addresses.flatMap((a) => [
      emailRepo.tx.suppress(m.tenantId, a, kind, now),
      events.emailBounced(m.tenantId, m.conversationId, m.messageId, a, kind, now),
    ]),
  );
  logger.info('email address suppressed', {
    tenantId: m.tenantId,
    conversationId: m.conversationId,
    kind,
    count: addresses.length,
  });
}
