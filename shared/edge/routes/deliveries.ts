import * as z from 'zod/mini';
import { DELIVERY_STATUSES } from '#shared/core/vocabulary.ts';
import { EmptyQuery, pageQuery, text } from '../schema.ts';
import { declareAdmin } from '../route.ts';
import { Page, Timestamp } from './common.ts';
import { IntegrationParams } from './integrations.ts';

// Request and response schemas of /integrations/:id/deliveries and /integrations/:id/test: the delivery log and its controls.

export const DeliveryStatus = z.enum(DELIVERY_STATUSES, {
  message: `must be ${DELIVERY_STATUSES.slice(0, -1).join(', ')} or ${DELIVERY_STATUSES.at(-1)}`,
});
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
  table: 'read',
  params: IntegrationParams,
  query: ListDeliveriesQuery,
  response: DeliveryPage,
  status: 200,
  summary: 'Deliveries of an integration, newest first',
  description:
    'Kept 30 days. A failed attempt is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery ' +
    'is `failed`. An endpoint that answers 410 Gone, or fails every delivery for 5 days, is set `disabled`.',
});

export const redeliver = declareAdmin(
  'POST',
  '/integrations/{id}/deliveries/{deliveryId}/redeliver',
  'redeliver',
  'admin',
  {
    table: 'write',
    queue: true,
    params: DeliveryParams,
    response: QueuedDelivery,
    status: 202,
    idempotent: true,
    conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
    summary: 'Queue a delivery again',
    description:
      'A fresh retry schedule; the same event, so the same `webhook-id`. A disabled integration: 409 `CONFLICT`.',
  },
);

const EntityValues = z
  .record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an entity name')), text(1, 500), {
    message: 'must be an object of strings',
  })
  .check(z.refine((e) => Object.keys(e).length <= 20, 'must have at most 20 entries'));
export const TestBody = z.strictObject({
  intent: z.optional(
    z
      .string()
      .check(
        z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be an intent name'),
        z.describe(
          'action integrations only (then required): the intent whose call is tried; its response and failure response give the reply',
        ),
      ),
  ),
  entities: z.optional(
    EntityValues.check(
      z.describe('action integrations only: the entities the call carries, as the chat would have found them'),
    ),
  ),
  response: z.optional(
    text(1, 2000).check(z.describe("action integrations only: a response to try instead of the intent's saved one")),
  ),
  failureResponse: z.optional(
    text(1, 2000).check(
      z.describe("action integrations only: a failure response to try instead of the intent's saved one"),
    ),
  ),
});
export const ActionTried = z.object({
  action: z.object({
    status: z.enum(['ok', 'failed', 'timeout', 'skipped']),
    latencyMs: z.number().check(z.int(), z.gte(0)),
  }),
  reply: z.string().check(z.describe('what a customer would read')),
});

export const testIntegration = declareAdmin('POST', '/integrations/{id}/test', 'test-integration', 'admin', {
  table: 'write',
  queue: true,
  kms: true,
  params: IntegrationParams,
  body: TestBody,
  bodyOptional: true,
  response: QueuedDelivery,
  status: 202,
  alternate: {
    status: 200,
    response: ActionTried,
    description:
      'An action integration: called once at once, as the intent would call it; the reply a customer would read. Nothing is stored.',
  },
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Send a test event, or try an action',
  description:
    'A webhook or Slack integration (no body): a `ping` event `{ type: "ping", timestamp, data: {} }` through the same path as every event; ' +
    "a disabled integration: 409 `CONFLICT`. An action integration: `{ intent, entities }` (the body's other fields try unsaved words), " +
    'one signed call with `conversationId: null`, `message: ""` and `customer: null`, answered 200 `{ action: { status, latencyMs }, reply }`; ' +
    'the circuit breaker neither skips nor counts it.',
});

export const ActionCall = z.object({
  id: z.string(),
  intent: z.string(),
  status: z.enum(['ok', 'failed', 'timeout', 'skipped']),
  latencyMs: z.number().check(z.int(), z.gte(0)),
  httpStatus: z
    .nullable(z.number().check(z.int()))
    .check(z.describe("the endpoint's answer status; null when none came")),
  error: z.nullable(z.string()).check(z.describe('why the call failed; null when it answered')),
  conversationId: z.nullable(z.uuid()),
  createdAt: Timestamp,
});
export const listActionCalls = declareAdmin('GET', '/integrations/{id}/calls', 'list-action-calls', 'admin', {
  table: 'read',
  params: IntegrationParams,
  query: EmptyQuery,
  response: z.object({ items: z.array(ActionCall) }),
  status: 200,
  summary: 'The recent calls of an action integration, newest first',
  description:
    'The last 20 calls that chat messages made, kept 7 days (tries from POST /integrations/{id}/test are not kept). Another type of integration: `[]`.',
});

export const routes = [listDeliveries, redeliver, testIntegration, listActionCalls];
