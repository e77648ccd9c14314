import { sesReceiptHandler } from '#shared/edge/ses.ts';
import { receiveEmail } from '#shared/domain/email/inbound.ts';

export const handler = sesReceiptHandler(receiveEmail);
