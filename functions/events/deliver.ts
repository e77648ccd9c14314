import { queueHandler } from '#shared/edge/queue.ts';
import { attemptDelivery } from '#shared/domain/events-out/deliveries.ts';

export const handler = queueHandler(attemptDelivery);
