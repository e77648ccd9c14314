import type { SESEvent } from 'aws-lambda';
import { logger } from '#shared/core/log.ts';
import { emailKeys } from '#shared/data/keys.ts';
import { objectsRepo } from '#shared/data/objects.ts';
import type { InboundMail, InboundOutcome } from '#shared/domain/email/inbound.ts';
import { observed } from './observe.ts';

// The edge of inbound mail: an SES receipt rule's Lambda action, after its S3 action stored the
// message under `inbound/<SES message id>`. The local SMTP server stores the message the same way
// and invokes the same handler with the same event shape. The result carries the outcome (SES
// reads only `disposition`; the local server answers the SMTP DATA command with the outcome).

export interface ReceiptResult {
  disposition: 'STOP_RULE_SET' | 'CONTINUE';
  outcomes: InboundOutcome[];
}

export function sesReceiptHandler(fn: (mail: InboundMail) => Promise<InboundOutcome>) {
  return observed(async (event: SESEvent): Promise<ReceiptResult> => {
    const outcomes: InboundOutcome[] = [];
    for (const r of event.Records) {
      const { mail, receipt } = r.ses;
      const rawKey = emailKeys.inboundObject(mail.messageId);
      if (receipt.virusVerdict?.status === 'FAIL') {
        outcomes.push({ accepted: false, code: 554, reason: '5.7.1 the message carries a virus' });
        continue;
      }
      const raw = await objectsRepo.get(rawKey);
      if (!raw) {
        logger.error('inbound message not found in the mail bucket', { rawKey });
        outcomes.push({ accepted: false, code: 451, reason: '4.3.0 the message was not stored; try again' });
        continue;
      }
      const outcome = await fn({
        rawKey,
        raw,
        recipients: receipt.recipients,
        envelopeFrom: mail.source,
        // The stack's receipt rule invokes the function as an Event: SES has answered the sender already.
        bounce: receipt.action.type === 'Lambda' && receipt.action.invocationType === 'Event',
        verdicts: {
          spf: receipt.spfVerdict.status,
          dkim: receipt.dkimVerdict.status,
          dmarc: receipt.dmarcVerdict.status,
        },
      });
      if (!outcome.accepted)
        logger.warn('inbound message refused', { rawKey, code: outcome.code, reason: outcome.reason });
      outcomes.push(outcome);
    }
    return { disposition: 'STOP_RULE_SET', outcomes };
  });
}
