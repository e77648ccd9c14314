import { tenantQueueHandler } from '#shared/edge/queue.ts';
import { indexTenant } from '#shared/domain/indexing/indexing.ts';
import { indexQueue, parseIndexMessage } from '#shared/data/index-queue.ts';

export const handler = tenantQueueHandler(parseIndexMessage, indexTenant, (tenantIds) => indexQueue.send(tenantIds));
