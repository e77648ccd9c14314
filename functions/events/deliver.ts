import { queueHandler } from '#shared/edge/queue.ts';
import { attemptDelivery, deliveryPacing } from '#shared/domain/events-out/deliveries.ts';

export const handler = queueHandler(attemptDelivery, deliveryPacing);
