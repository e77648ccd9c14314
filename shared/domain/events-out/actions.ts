import { ulid } from 'ulid';
import { fieldError, NotFound } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import { actionCallsRepo, type ActionCall, type ActionStatus } from '#shared/data/action-calls.ts';
import { integrationsRepo, type IntegrationItem } from '#shared/data/integrations.ts';
import { intentsRepo, type Intent } from '#shared/data/intents.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { fillTemplate } from '#shared/nlu/index.ts';
import { credentialsOf } from './credentials.ts';
import { sendTest } from './deliveries.ts';
import { postJson } from './outbound.ts';
import { checkWebhookUrl, loopbackAllowed } from './webhook-url.ts';
import { signedHeaders } from './webhook-signing.ts';
import { clock } from '#shared/core/clock.ts';

// Actions: an intent asks the tenant's own endpoint (an `action` integration) before it answers.
// The call is made inside the chat request, signed as a webhook is, through the same address
// guard, with a hard deadline; its outcome is metadata, never an exception on the chat path.
// Anything but a well-formed answer gives the intent's failure response, never a half-filled one.
//
// The circuit breaker and the `action.failed` pacing are kept per container (in memory): a warm
// container that saw 5 failures in a row stops calling for 60 s; another container counts its own.
// The event's pacing is also guarded in the table, so at most one a minute leaves per integration.

export const ACTION_TIMEOUT = { min: 500, max: 10_000, default: 3000 } as const;
/** The largest answer read; a longer one is a failure. */
export const ANSWER_LIMIT_BYTES = 16 * 1024;
export const REPLY_MAX_CHARS = 2000;
export const BREAKER = { failures: 5, openMs: 60_000 } as const;
const EVENT_EVERY_MS = 60_000;
const MIN_BUDGET_MS = 250;
export const DEFAULT_FAILURE_RESPONSE =
  "Sorry, I can't look that up right now. If you'd like, I can pass you to a person from our team: just ask for one.";
const USER_AGENT = 'support-assistant-actions/1';

export interface ActionMetadata {
  integrationId: string;
  status: ActionStatus;
  latencyMs: number;
}

// ---- the integration ----------------------------------------------------------------------

/** An action integration's config as stored: its URL and its timeout (the default filled in). */
export function actionConfig(config: Record<string, unknown>) {
  for (const k of Object.keys(config))
    if (k !== 'url' && k !== 'timeoutMs')
      throw fieldError(`config.${k}`, 'is not a setting of an action (url, timeoutMs)');
  if (typeof config.url !== 'string') throw fieldError('config.url', 'is required for an action (an https URL)');
  const why = checkWebhookUrl(config.url, loopbackAllowed(config.url));
  if (why) throw fieldError('config.url', why);
  const t = config.timeoutMs ?? ACTION_TIMEOUT.default;
  if (typeof t !== 'number' || !Number.isInteger(t) || t < ACTION_TIMEOUT.min || t > ACTION_TIMEOUT.max) {
    throw fieldError(
      'config.timeoutMs',
      `must be a whole number of milliseconds from ${ACTION_TIMEOUT.min} to ${ACTION_TIMEOUT.max}`,
    );
  }
  return { url: config.url, timeoutMs: t };
}

const ID_SHAPE = /^int_[0-9A-Za-z]{1,64}$/;

/** The tenant's action integration of that id, or null (unknown, another tenant's, or another type). */
export async function findActionIntegration(tenantId: string, id: string): Promise<IntegrationItem | null> {
  const i = ID_SHAPE.test(id) ? await integrationsRepo.get(tenantId, id) : null;
  return i?.type === 'action' ? i : null;
}

// ---- the answer's words -------------------------------------------------------------------

const DATA_PLACEHOLDER = /\{\{\s*data\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

/** The `{{data.path}}` placeholders of a template, each once. */
export const dataPaths = (template: string) => [...new Set([...template.matchAll(DATA_PLACEHOLDER)].map((m) => m[1]!))];

/** The value at `path` of `data` when it is a string or a finite number (the only things shown), else null. */
function valueAt(data: unknown, path: string): string | null {
  let v: unknown = data;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) return null;
    v = (v as Record<string, unknown>)[part];
  }
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

/** The template with its entities and `{{data.path}}` values filled, or null when one has no value (never half-filled). */
export function renderWithData(template: string, entities: Record<string, string>, data: unknown): string | null {
  let missing = false;
  const filled = fillTemplate(template, entities).replace(DATA_PLACEHOLDER, (_m, path: string) => {
    const v = valueAt(data, path);
    if (v === null) missing = true;
    return v ?? '';
  });
  return missing ? null : filled;
}

interface Answer {
  reply?: string;
  data?: Record<string, unknown>;
  handoff?: boolean;
}

/** The endpoint's answer when it has the documented shape, else why not. */
function parseAnswer(text: string): Answer | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'the answer is not a JSON object';
  const { reply, data, handoff } = v as Record<string, unknown>;
  const out: Answer = {};
  if (reply !== undefined) {
    const r = typeof reply === 'string' ? reply.trim() : null;
    if (r === null || r.length === 0 || [...r].length > REPLY_MAX_CHARS)
      return `reply must be text of 1 to ${REPLY_MAX_CHARS} characters`;
    out.reply = r;
  }
  if (data !== undefined) {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return 'data must be a JSON object';
    out.data = data as Record<string, unknown>;
  }
  if (handoff !== undefined) {
    if (typeof handoff !== 'boolean') return 'handoff must be true or false';
    out.handoff = handoff;
  }
  return out;
}

// ---- the call -----------------------------------------------------------------------------

export interface CallInput {
  intent: string;
  entities: Record<string, string>;
  message: string;
  conversationId: string | null;
  customer: { userId: string | null; email: string | null; verified: boolean } | null;
}

export interface CallOutcome {
  status: ActionStatus;
  latencyMs: number;
  httpStatus: number | null;
  error: string | null;
  answer: Answer | null;
}

const breakers = new Map<string, { failures: number; openUntil: number }>();
/** By the integration's version too: a team that fixes its endpoint's URL or secret is tried at once. */
const breakerKey = (tenantId: string, i: Pick<IntegrationItem, 'id' | 'updatedAt'>) =>
  `${tenantId}/${i.id}/${i.updatedAt}`;

function remember(key: string, ok: boolean) {
  if (ok) {
    breakers.delete(key);
    return;
  }
  const b = breakers.get(key) ?? { failures: 0, openUntil: 0 };
  b.failures += 1;
  if (b.failures >= BREAKER.failures) b.openUntil = clock.now() + BREAKER.openMs;
  if (breakers.size >= 10_000 && !breakers.has(key)) breakers.clear();
  breakers.set(key, b);
}

/**
 * One signed POST to the action's endpoint, answered by `deadline` (epoch ms) at the latest.
 * `breaker` false: the call is made whatever the breaker says, and not counted (the test route).
 */
export async function callAction(
  tenantId: string,
  i: IntegrationItem,
  input: CallInput,
  opts: { deadline: number; breaker: boolean },
): Promise<CallOutcome> {
  const skipped = (error: string): CallOutcome => ({
    status: 'skipped',
    latencyMs: 0,
    httpStatus: null,
    error,
    answer: null,
  });
  if (i.status !== 'active') return skipped('the action integration is disabled');
  const key = breakerKey(tenantId, i);
  if (opts.breaker && (breakers.get(key)?.openUntil ?? 0) > clock.now()) {
    return skipped(
      `skipped after ${BREAKER.failures} failures in a row; tried again ${BREAKER.openMs / 1000} s after the last`,
    );
  }
  const { url, timeoutMs } = {
    url: String(i.config.url),
    timeoutMs: Number(i.config.timeoutMs ?? ACTION_TIMEOUT.default),
  };
  const started = performance.now();
  const at = clock.date();
  const body = JSON.stringify({ type: 'intent.action', timestamp: at.toISOString(), data: input });
  let outcome: CallOutcome;
  try {
    const creds = await credentialsOf(tenantId, i);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(creds.secret!, `act_${ulid(clock.now())}`, at, body),
    };
    // The request's deadline, but never less than a moment: a container's first message (the model
    // loading) may have used the whole budget, and an endpoint that answers at once still answers.
    const budget = Math.min(timeoutMs, Math.max(opts.deadline - clock.now(), MIN_BUDGET_MS));
    const r = await postJson(url, body, headers, {
      allowLoopback: loopbackAllowed(url),
      timeoutMs: budget,
      keepBytes: ANSWER_LIMIT_BYTES,
    });
    const latencyMs = Math.round(performance.now() - started);
    if (r.timedOut) outcome = { status: 'timeout', latencyMs, httpStatus: null, error: r.error, answer: null };
    else if (!r.ok) outcome = { status: 'failed', latencyMs, httpStatus: r.status, error: r.error, answer: null };
    else if (r.overflow)
      outcome = {
        status: 'failed',
        latencyMs,
        httpStatus: r.status,
        error: `the answer is larger than ${ANSWER_LIMIT_BYTES / 1024} KB`,
        answer: null,
      };
    else {
      const answer = parseAnswer(r.body);
      outcome =
        typeof answer === 'string'
          ? { status: 'failed', latencyMs, httpStatus: r.status, error: answer, answer: null }
          : { status: 'ok', latencyMs, httpStatus: r.status, error: null, answer };
    }
  } catch (e) {
    // Never an exception on the chat path: whatever went wrong is a failed call.
    logger.warn('action call failed', { integrationId: i.id, error: (e as Error).message });
    outcome = {
      status: 'failed',
      latencyMs: Math.round(performance.now() - started),
      httpStatus: null,
      error: 'the call could not be made',
      answer: null,
    };
  }
  if (opts.breaker) remember(key, outcome.status === 'ok');
  return outcome;
}

/**
 * What the customer reads: the answer's `reply`, else the intent's response filled from its
 * `data`; anything else (and a placeholder with no value) the failure response. A rendering that
 * fails turns the call into a failure; `handoff` counts only with an answer shown.
 */
export function replyOf(
  outcome: CallOutcome,
  templates: { response: string | null; failureResponse: string | null },
  entities: Record<string, string>,
): { reply: string; outcome: CallOutcome; handoff: boolean } {
  const failure = (o: CallOutcome) => ({
    reply: fillTemplate(templates.failureResponse ?? DEFAULT_FAILURE_RESPONSE, entities),
    outcome: o,
    handoff: false,
  });
  if (outcome.status !== 'ok' || !outcome.answer) return failure(outcome);
  const { answer } = outcome;
  const reply =
    answer.reply ??
    (templates.response === null ? null : renderWithData(templates.response, entities, answer.data ?? {}));
  if (reply === null) {
    const error =
      templates.response === null
        ? 'the answer has no reply and there is no response to fill'
        : 'a placeholder of the response has no value in data';
    return failure({ ...outcome, status: 'failed', error });
  }
  return { reply, outcome, handoff: answer.handoff === true };
}

// ---- the chat's side ----------------------------------------------------------------------

export interface ActionTurn {
  reply: string;
  /** The answer asked for a person: the turn escalates as POST /escalate would. */
  handoff: boolean;
  metadata: ActionMetadata;
  /** The call's entry in the integration's log, for the turn's own transaction. */
  items: TxItem[];
  /** Once the turn is written: `action.failed` when the call failed, at most once a minute per integration. */
  report(): Promise<void>;
}

const lastFailedEvent = new Map<string, number>();

/**
 * The calling intent's turn: its action asked and the words that answer. `startedAt` (epoch ms):
 * when the chat request began; the call ends by then + the action's `timeoutMs`. Every outcome
 * answers; nothing here throws but a database outage reading the integration.
 */
export async function lookUp(
  tenantId: string,
  intent: Intent,
  input: CallInput,
  startedAt: number,
): Promise<ActionTurn> {
  const integrationId = intent.integrationId ?? '';
  const i = await findActionIntegration(tenantId, integrationId);
  const outcome: CallOutcome = i
    ? await callAction(tenantId, i, input, {
        deadline: startedAt + Number(i.config.timeoutMs ?? ACTION_TIMEOUT.default),
        breaker: true,
      })
    : {
        status: 'failed',
        latencyMs: 0,
        httpStatus: null,
        error: 'the action integration no longer exists',
        answer: null,
      };
  const shown = replyOf(
    outcome,
    { response: intent.response, failureResponse: intent.failureResponse ?? null },
    input.entities,
  );
  const o = shown.outcome;
  const call: ActionCall = {
    id: ulid(clock.now()),
    intent: intent.name,
    status: o.status,
    latencyMs: o.latencyMs,
    httpStatus: o.httpStatus,
    error: o.error?.slice(0, 300) ?? null,
    conversationId: input.conversationId,
    createdAt: clock.iso(),
  };
  return {
    reply: shown.reply,
    handoff: shown.handoff,
    metadata: { integrationId, status: o.status, latencyMs: o.latencyMs },
    items: i ? [actionCallsRepo.tx.put(tenantId, integrationId, call)] : [],
    report: async () => {
      if (o.status === 'ok' || !i) return;
      const key = `${tenantId}/${integrationId}`;
      const now = clock.now();
      if (now - (lastFailedEvent.get(key) ?? -Infinity) < EVENT_EVERY_MS) return;
      lastFailedEvent.set(key, now);
      try {
        await actionCallsRepo.failedEvent(
          tenantId,
          integrationId,
          { integrationId, intent: intent.name, status: o.status, latencyMs: o.latencyMs },
          call.createdAt,
        );
      } catch (e) {
        // The customer has their answer already; a missed notice is logged, not raised.
        logger.warn('action.failed event not written', { integrationId, error: (e as Error).message });
      }
    },
  };
}

// ---- the admin routes ---------------------------------------------------------------------

async function actionOf(tenantId: string, id: string): Promise<IntegrationItem> {
  const i = ID_SHAPE.test(id) ? await integrationsRepo.get(tenantId, id) : null;
  if (!i) throw new NotFound('integration');
  return i;
}

export interface ActionTryInput {
  intent?: string | undefined;
  entities?: Record<string, string> | undefined;
  response?: string | undefined;
  failureResponse?: string | undefined;
}

/**
 * POST /integrations/:id/test on an action: one call as the intent named would make it, and the
 * reply a customer would read. Stores nothing, and neither trips nor waits for the breaker.
 * `response` and `failureResponse` try words not saved yet; else the named intent's are used.
 */
export async function tryAction(tenantId: string, i: IntegrationItem, input: ActionTryInput) {
  if (input.intent === undefined)
    throw fieldError('intent', 'is required to try an action (the name of the intent that calls it)');
  const named: Intent | undefined = (await intentsRepo.list(tenantId)).find((x) => x.name === input.intent);
  const entities = input.entities ?? {};
  const timeoutMs = Number(i.config.timeoutMs ?? ACTION_TIMEOUT.default);
  const outcome = await callAction(
    tenantId,
    { ...i, status: 'active' },
    {
      intent: input.intent,
      entities,
      message: '',
      conversationId: null,
      customer: null,
    },
    { deadline: clock.now() + timeoutMs, breaker: false },
  );
  const shown = replyOf(
    outcome,
    {
      response: input.response ?? named?.response ?? null,
      failureResponse: input.failureResponse ?? named?.failureResponse ?? null,
    },
    entities,
  );
  return { action: { status: shown.outcome.status, latencyMs: shown.outcome.latencyMs }, reply: shown.reply };
}

export async function recentCalls(tenantId: string, integrationId: string) {
  const i = await actionOf(tenantId, integrationId);
  if (i.type !== 'action') return { items: [] };
  return { items: await actionCallsRepo.recent(tenantId, integrationId) };
}

/** POST /integrations/:id/test: an action is tried at once (200); any other integration gets a `ping` event queued (202). */
export async function testIntegration(tenantId: string, id: string, input: ActionTryInput) {
  const i = await actionOf(tenantId, id);
  if (i.type === 'action') return { tried: await tryAction(tenantId, i, input) };
  const extra = Object.keys(input).find((k) => input[k as keyof ActionTryInput] !== undefined);
  if (extra) throw fieldError(extra, 'is only for trying an action integration');
  return { queued: await sendTest(tenantId, id) };
}
