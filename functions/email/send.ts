import { recordHandler } from '#shared/edge/queue.ts';
import { sendFromQueue } from '#shared/domain/email/outbound.ts';

export const handler = recordHandler(sendFromQueue);
