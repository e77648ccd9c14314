import { ulid } from 'ulid';
import { config } from '#shared/core/config.ts';
import { METRIC } from '#shared/core/metric-names.ts';
import { count } from '#shared/core/metrics.ts';
import { EVENT_TYPES, type DomainEvent as CoreEvent, type EventType } from '#shared/core/vocabulary.ts';
import type { DeliveryStatus } from '#shared/core/vocabulary.ts';
import { deliveriesRepo, type DeliveryItem, type NewDelivery } from '#shared/data/deliveries.ts';
import { deliveryQueue, parseMessage, type DeliveryMessage } from '#shared/data/delivery-queue.ts';
import { integrationsRepo, type IntegrationItem } from '#shared/data/integrations.ts';
import { Conflict, NotFound } from '#shared/core/errors.ts';
import { credentialsOf } from './credentials.ts';
import { postJson } from './outbound.ts';
import { SLACK_EVENT_TYPES, slackMessage, slackWants } from './slack.ts';
import { signedHeaders } from './webhook-signing.ts';
import { loopbackAllowed } from './webhook-url.ts';
import { clock } from '#shared/core/clock.ts';

// Events out, delivered at least once: the dispatcher calls `fanOut` for each event; each matching
// integration gets a delivery item and one queue message; the delivery function calls
// `attemptDelivery` per message. At least once: a failed attempt keeps its message and brings it
// back after the next step of the schedule; the event id is the `webhook-id` of every attempt.

/** An event as the dispatcher hands it over, or the `ping` of POST /integrations/:id/test. */
export type DomainEvent = Omit<CoreEvent, 'type'> & { type: EventType | 'ping' };
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
/** What a receiver gets: the event without its routing fields. */
const payloadOf = (e: DomainEvent) => JSON.stringify({ type: e.type, timestamp: e.timestamp, data: e.data });

/** Seconds before retry n (after attempt n fails): the Standard Webhooks schedule. */
export const RETRY_SCHEDULE = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE.length + 1;
/** An integration whose every attempt failed for this long is disabled. */
export const FAILING_LIMIT_MS = 5 * 24 * 3600 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();

const SYSTEM = { type: 'system' as const, id: 'delivery' };
const INTEGRATION_ID = /^int_[A-Za-z0-9]{1,64}$/;
const DELIVERY_ID = /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/;

export const deliveryView = (d: DeliveryItem) => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  lastAttemptAt: d.lastAttemptAt,
  nextAttemptAt: d.nextAttemptAt,
  lastResponseStatus: d.lastResponseStatus,
  lastError: d.lastError,
  createdAt: d.createdAt,
});

/** The event types an integration receives: its `config.events`, else all it can use. */
function wants(i: IntegrationItem, e: DomainEvent): boolean {
  if (e.type === 'ping') return true;
  const listed = Array.isArray(i.config.events) ? (i.config.events as string[]) : null;
  if (i.type === 'webhook') return (listed ?? (EVENT_TYPES as readonly string[])).includes(e.type);
  if (i.type === 'slack') return (listed ?? (SLACK_EVENT_TYPES as readonly string[])).includes(e.type) && slackWants(e);
  // zendesk and email are refused at creation; an old item of either receives nothing.
  return false;
}

/** The queue message of a delivery's current run; a ping goes beside the endpoint's ordered deliveries. */
const messageOf = (tenantId: string, d: DeliveryItem): DeliveryMessage => ({
  tenantId,
  integrationId: d.integrationId,
  deliveryId: d.id,
  run: d.run,
  ...(d.eventType === 'ping' ? { ping: true as const } : {}),
});

async function queueNew(i: IntegrationItem, e: DomainEvent, now: string): Promise<DeliveryItem> {
  const d: NewDelivery = {
    id: `dlv_${e.id.slice(4)}`,
    integrationId: i.id,
    eventId: e.id,
    eventType: e.type,
    payload: payloadOf(e),
    status: 'pending',
    attempts: 0,
    runBase: 0,
    run: 1,
    lastAttemptAt: null,
    nextAttemptAt: now,
    lastResponseStatus: null,
    lastError: null,
    createdAt: now,
  };
  if (!(await deliveriesRepo.create(e.tenantId, d))) {
    // The same event again (the dispatcher retried). Queue it again only if no message ever took it
    // up, in case the first try stopped between the put and the send; a second message for a run
    // that has an owner stands aside.
    const existing = await deliveriesRepo.get(e.tenantId, i.id, d.id);
    if (!existing || existing.owner || existing.status !== 'pending') return existing ?? d;
    await deliveryQueue.send(messageOf(e.tenantId, existing));
    return existing;
  }
  await deliveryQueue.send(messageOf(e.tenantId, d));
  return d;
}

/** One delivery per active integration of the tenant that takes this event type; idempotent per (event, integration). */
export async function fanOut(event: DomainEvent): Promise<void> {
  if (!EVENT_ID.test(event.id)) throw new Error(`event id ${event.id} is not evt_ + ULID`);
  const integrations = (await integrationsRepo.list(event.tenantId)).filter(
    (i) => i.status === 'active' && wants(i, event),
  );
  const now = iso(clock.now());
  await Promise.all(integrations.map((i) => queueNew(i, event, now)));
}

async function integrationOf(tenantId: string, id: string): Promise<IntegrationItem> {
  const i = INTEGRATION_ID.test(id) ? await integrationsRepo.get(tenantId, id) : null;
  if (!i) throw new NotFound('integration');
  return i;
}

export async function listDeliveries(
  tenantId: string,
  integrationId: string,
  q: { status?: DeliveryStatus; limit: number; cursor?: string },
) {
  await integrationOf(tenantId, integrationId);
  const page = await deliveriesRepo.page(tenantId, integrationId, q.status, q.limit, q.cursor);
  return { items: page.items.map(deliveryView), nextCursor: page.nextCursor };
}

const active = (i: IntegrationItem) => {
  if (i.status !== 'active') throw new Conflict('the integration is disabled; set its status to active with PUT first');
};

/** Queued again as a new run with a fresh schedule; the same event, so the same `webhook-id`. */
export async function redeliver(tenantId: string, integrationId: string, deliveryId: string) {
  const [i, d] = await Promise.all([
    integrationOf(tenantId, integrationId),
    DELIVERY_ID.test(deliveryId) && INTEGRATION_ID.test(integrationId)
      ? deliveriesRepo.get(tenantId, integrationId, deliveryId)
      : null,
  ]);
  if (!d) throw new NotFound('delivery');
  active(i);
  const restarted = await deliveriesRepo.restart(tenantId, d, iso(clock.now()));
  if (!restarted) throw new NotFound('delivery');
  await deliveryQueue.send(messageOf(tenantId, restarted));
  return { delivery: deliveryView(restarted) };
}

/** A `ping` event through the same path as every other event. */
export async function sendTest(tenantId: string, integrationId: string) {
  const i = await integrationOf(tenantId, integrationId);
  active(i);
  const now = clock.now();
  const event: DomainEvent = { id: `evt_${ulid(now)}`, type: 'ping', timestamp: iso(now), tenantId, data: {} };
  return { delivery: deliveryView(await queueNew(i, event, iso(now))) };
}

// ---- the delivery function's side -------------------------------------------------------------

const USER_AGENT = 'support-assistant-webhooks/1';

async function send(tenantId: string, i: IntegrationItem, d: DeliveryItem, payload: string, now: number) {
  const creds = await credentialsOf(tenantId, i);
  const target = i.type === 'slack' ? (creds.webhookUrl ?? '') : String(i.config.url);
  const opts = { allowLoopback: loopbackAllowed(target), timeoutMs: config.deliveryTimeoutMs };
  const json = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (i.type === 'webhook') {
    const headers = { ...json, ...signedHeaders(creds.secret!, d.eventId, new Date(now), payload) };
    return postJson(String(i.config.url), payload, headers, opts);
  }
  if (i.type === 'slack') {
    const body = slackMessage(JSON.parse(payload) as DomainEvent, config.dashboardUrl);
    if (!body) return { ok: true, status: null, error: null, body: '' };
    return postJson(creds.webhookUrl!, JSON.stringify(body), json, opts);
  }
  return { ok: false, status: null, error: `${i.type} integrations are not delivered`, body: '' };
}

async function disable(tenantId: string, i: IntegrationItem, why: string, now: number) {
  const done = await integrationsRepo.disable(
    tenantId,
    i.id,
    {
      action: 'integration.disabled',
      actor: SYSTEM,
      target: { type: 'integration', id: i.id },
      changes: { status: { from: 'active', to: 'disabled' }, reason: { from: null, to: why } },
    },
    iso(now),
  );
  return done;
}

export interface QueueMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
}

/**
 * `retry`: the message was set to come back after the next step of the schedule
 * (`retryAfterSeconds`), so the caller must not delete it (a batch item failure), and holds the
 * endpoint's later deliveries as long; `done`: delete it. `note`: something an operator should see.
 */
export interface AttemptOutcome {
  outcome: 'done' | 'retry';
  retryAfterSeconds?: number;
  note?: { message: string; [k: string]: unknown };
}
const DONE: AttemptOutcome = { outcome: 'done' };

/** How the consumer holds an endpoint's later deliveries, and the longest one attempt takes (the receiver's timeout, and the table's calls). */
export const deliveryPacing = {
  hold: (receiptHandle: string, seconds: number) => deliveryQueue.retryAfter(receiptHandle, seconds),
  attemptMs: () => config.deliveryTimeoutMs + 5_000,
};

/** One attempt for one queue message. */
export async function attemptDelivery(m: QueueMessage): Promise<AttemptOutcome> {
  const msg = parseMessage(m.body);
  if (!msg)
    return { outcome: 'done', note: { message: 'delivery message is malformed; dropped', messageId: m.messageId } };
  const { tenantId } = msg;
  const [found, i] = await Promise.all([
    deliveriesRepo.withBody(tenantId, msg.integrationId, msg.deliveryId),
    integrationsRepo.get(tenantId, msg.integrationId),
  ]);
  const d = found?.delivery;
  // Stale (redelivered since, or finished): nothing to do.
  if (!d || d.run !== msg.run || d.status !== 'pending') return DONE;
  const started = clock.now();
  const payload = found!.payload;
  if (i?.status !== 'active' || payload === null) {
    await deliveriesRepo.record(tenantId, d, {
      status: 'failed',
      nextAttemptAt: null,
      lastResponseStatus: d.lastResponseStatus,
      lastError: !i
        ? 'the integration was deleted'
        : payload === null
          ? "the delivery's body was erased with the customer's data"
          : 'the integration is disabled',
    });
    count(METRIC.deliveriesFailed);
    return DONE;
  }
  if (!(await deliveriesRepo.claim(tenantId, d, m.messageId, iso(started)))) return DONE;

  const attempt = d.attempts + 1 - d.runBase;
  const result = await send(tenantId, i, d, payload, started);
  const now = clock.now();
  const base = { lastResponseStatus: result.status };
  if (result.ok) {
    await deliveriesRepo.record(tenantId, d, { ...base, status: 'succeeded', nextAttemptAt: null, lastError: null });
    if (i.failingSince) await integrationsRepo.clearFailing(tenantId, i.id);
    return DONE;
  }

  const lastError = result.body ? `${result.error}: ${result.body}`.slice(0, 1024) : result.error;
  let disabledWhy: string | null = null;
  if (result.status === 410) {
    disabledWhy = 'the endpoint answered 410 Gone';
  } else {
    const since = i.failingSince ?? (await integrationsRepo.markFailing(tenantId, i.id, iso(now)));
    if (since && now - Date.parse(since) >= FAILING_LIMIT_MS) disabledWhy = 'every delivery failed for 5 days';
  }
  const delay = disabledWhy || attempt >= MAX_ATTEMPTS ? null : RETRY_SCHEDULE[attempt - 1]!;
  await deliveriesRepo.record(tenantId, d, {
    ...base,
    status: delay === null ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? null : iso(now + delay * 1000),
    lastError,
  });
  const note =
    disabledWhy && (await disable(tenantId, i, disabledWhy, now))
      ? { message: 'integration disabled', tenantId, integrationId: i.id, reason: disabledWhy }
      : undefined;
  if (delay === null) {
    count(METRIC.deliveriesFailed);
    return { outcome: 'done', ...(note ? { note } : {}) };
  }
  await deliveryQueue.retryAfter(m.receiptHandle, delay);
  return { outcome: 'retry', retryAfterSeconds: delay, ...(note ? { note } : {}) };
}
