import * as z from 'zod/mini';
import { DELIVERY_STATUSES } from '#shared/core/vocabulary.ts';
import { pageQuery } from '../schema.ts';
import { declareAdmin } from '../route.ts';
import { Page, Timestamp } from './common.ts';
import { IntegrationParams } from './integrations.ts';

// Request and response schemas of /integrations/:id/deliveries and /integrations/:id/test: the delivery log and its controls.

export const DeliveryStatus = z.enum(DELIVERY_STATUSES, { message: `must be ${DELIVERY_STATUSES.slice(0, -1).join(', ')} or ${DELIVERY_STATUSES.at(-1)}` });
export const ListDeliveriesQuery = z.strictObject({ status: z.optional(DeliveryStatus), ...pageQuery });
export const DeliveryParams = z.strictObject({ id: z.string(), deliveryId: z.string() });

export const Delivery = z.object({
  id: z.string(),
  eventId: z.string().check(z.describe('the `webhook-id` header of every attempt')),
  eventType: z.string(),
  status: DeliveryStatus,
  attempts: z.number().check(z.int(), z.gte(0)),
  lastAttemptAt: z.nullable(Timestamp),
  nextAttemptAt: z.nullable(Timestamp).check(z.describe('when the next attempt is due; null once succeeded or failed')),
  lastResponseStatus: z.nullable(z.number().check(z.int())),
  lastError: z.nullable(z.string()).check(z.describe('why the last attempt failed, with at most 1 KiB of the answer')),
  createdAt: Timestamp,
});
export const DeliveryPage = Page(Delivery);
export const QueuedDelivery = z.object({ delivery: Delivery });

export const listDeliveries = declareAdmin('GET', '/integrations/{id}/deliveries', 'list-deliveries', 'admin', {
  table: 'read', params: IntegrationParams, query: ListDeliveriesQuery, response: DeliveryPage, status: 200,
  summary: 'Deliveries of an integration, newest first',
  description: 'Kept 30 days. A failed attempt is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery '
    + 'is `failed`. An endpoint that answers 410 Gone, or fails every delivery for 5 days, is set `disabled`.',
});

export const redeliver = declareAdmin('POST', '/integrations/{id}/deliveries/{deliveryId}/redeliver', 'redeliver', 'admin', {
  table: 'write', queue: true, params: DeliveryParams, response: QueuedDelivery, status: 202, idempotent: true, conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Queue a delivery again',
  description: 'A fresh retry schedule; the same event, so the same `webhook-id`. A disabled integration: 409 `CONFLICT`.',
});

export const testIntegration = declareAdmin('POST', '/integrations/{id}/test', 'test-integration', 'admin', {
  table: 'write', queue: true, params: IntegrationParams, response: QueuedDelivery, status: 202, idempotent: true, conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Send a test event',
  description: 'A `ping` event `{ type: "ping", timestamp, data: {} }` through the same path as every event. A disabled integration: 409 `CONFLICT`.',
});

export const routes = [listDeliveries, redeliver, testIntegration];
