import { recordHandler } from '#shared/edge/queue.ts';
import { handleSesEvent } from '#shared/domain/email/delivery-events.ts';

export const handler = recordHandler(handleSesEvent);
