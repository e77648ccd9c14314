import { config } from '#shared/core/config.ts';
import { logger } from '#shared/core/log.ts';
import { limitsRepo } from '#shared/data/limits.ts';
import { transact, TxConditionFailed } from '#shared/data/tx.ts';
import { sendNotice } from './outbound.ts';
import { clock } from '#shared/core/clock.ts';

// In AWS, SES has said 250 before the receive function runs (the receipt rule invokes it as an
// Event), so a message refused for a cap cannot be refused in the SMTP dialogue: its sender gets a
// bounce instead, as section 14 says. Only for caps (552, 451), only to a sender that is not the
// null reverse-path, and at most a few an hour per sender and tenant, so a forged sender's
// address is not flooded with bounces (backscatter).

const BOUNCES_PER_SENDER_HOUR = 3;
const HOUR = 3600;
/** The limit window of one sender's bounces (erasure deletes it with the address). */
export const bounceWindow = (to: string) => `bounce#${to}`;

export async function bounceRefusal(r: {
  tenantId: string;
  to: string;
  recipients: string[];
  code: number;
  reason: string;
}): Promise<boolean> {
  const to = r.to.trim().toLowerCase();
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(to) || to.endsWith(`@${config.inboundDomain}`) || ![451, 552].includes(r.code))
    return false;
  try {
    await transact([
      limitsRepo.tx.countInWindow(r.tenantId, bounceWindow(to), clock.date(), HOUR, BOUNCES_PER_SENDER_HOUR),
    ]);
  } catch (e) {
    if (e instanceof TxConditionFailed) return false;
    throw e;
  }
  const later = r.code < 500;
  await sendNotice({
    from: `mailer-daemon@${config.inboundDomain}`,
    to,
    subject: later ? 'Delivery delayed: your message was not accepted yet' : 'Undelivered: your message was refused',
    text: [
      `Your message to ${r.recipients.join(', ')} was not delivered.`,
      '',
      `The reason: ${r.code} ${r.reason}`,
      '',
      later ? 'Please send it again later.' : 'Please send a smaller message, or fewer or smaller attachments.',
    ].join('\n'),
  });
  logger.info('inbound message bounced', { tenantId: r.tenantId, code: r.code });
  return true;
}
