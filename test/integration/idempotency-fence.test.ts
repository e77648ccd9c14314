import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { eventually } from '../support/eventually.ts';

// An Idempotency-Key across a function that dies in the middle of its transaction (a Lambda
// timeout): the runtime runs in this process, so a middleware on the handlers' DynamoDB client can
// hold send-message's TransactWriteItems before it leaves, or swallow its answer after it committed.

let rt: LocalRuntime;
let widgetKey: string;
let conversationId: string;
/** `settled`: once a held transaction was let go, what became of it ('committed' or the error's name). */
type Fault = { kind: 'hold' | 'swallow'; release?: () => void; settled?: Promise<string> } | null;
let fault: Fault = null;

interface R {
  status: number;
  headers: Headers;
  body: any;
}
async function send(message: string, key: string): Promise<R> {
  const res = await fetch(`${rt.url}/api/v1/chat/message`, {
    method: 'POST',
    headers: { 'x-widget-key': widgetKey, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ message, conversationId }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
async function copies(text: string) {
  const res = await fetch(`${rt.url}/api/v1/chat/conversations/${conversationId}`, {
    headers: { 'x-widget-key': widgetKey },
  });
  const body = (await res.json()) as { messages: Array<{ content: string }> };
  return body.messages.filter((m) => m.content === text).length;
}
/** Sends `message` again until the key is no longer in progress (its Retry-After passed), and that answer. */
const afterInProgress = (message: string, key: string) =>
  eventually(
    async () => {
      const r = await send(message, key);
      expect(r.body.code, 'the key still in progress').not.toBe('IDEMPOTENCY_IN_PROGRESS');
      return r;
    },
    // The lock is 15 s (over the 10 s function timeout).
    { timeout: 30_000, interval: 500 },
  );

beforeAll(async () => {
  rt = await startLocalRuntime({ tableName: `idem-fence-${Date.now().toString(36)}`, stream: false });
  // Imported once the runtime has set the environment the client is made from.
  const { db } = await import('#shared/data/client.ts');
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const f = fault;
      if (!f || context.commandName !== 'TransactWriteItemsCommand') return next(args);
      fault = null;
      if (f.kind === 'hold') {
        let settle!: (what: string) => void;
        f.settled = new Promise((resolve) => {
          settle = resolve;
        });
        await new Promise<void>((resolve) => {
          f.release = resolve;
        });
        const outcome = next(args);
        outcome.then(
          () => settle('committed'),
          (e: Error) => settle(e.name),
        );
        return outcome;
      }
      await next(args);
      return new Promise<never>(() => undefined);
    },
    { step: 'finalizeRequest', name: 'testFault', priority: 'low' },
  );
  const token = await rt.idp.token({ sub: `fence-${randomUUID()}` });
  const r = await fetch(`${rt.url}/api/v1/admin/auth/onboard`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tenantName: 'Fence' }),
  });
  const onboarded = (await r.json()) as { widgetKey: string };
  expect(r.status, JSON.stringify(onboarded)).toBe(201);
  widgetKey = onboarded.widgetKey;
  const first = await fetch(`${rt.url}/api/v1/chat/message`, {
    method: 'POST',
    headers: { 'x-widget-key': widgetKey, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hello' }),
  });
  const started = (await first.json()) as { conversationId: string };
  expect(first.status, JSON.stringify(started)).toBe(200);
  conversationId = started.conversationId;
}, 60_000);

afterEach(() => {
  fault?.release?.();
  fault = null;
});
afterAll(async () => {
  await rt?.stop();
});

describe('a function that dies in the middle of its transaction', () => {
  it('committed before it died: the retry never stores a second copy (409 in progress with Retry-After, then 409 CONFLICT)', async () => {
    const text = `committed ${randomUUID()}`;
    fault = { kind: 'swallow' };
    const first = await send(text, 'swallowed');
    expect(first.status).toBe(503); // the function's timeout, answered by its middleware
    expect(await copies(text)).toBe(1);

    const busy = await send(text, 'swallowed');
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    const wait = Number(busy.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(16);

    const after = await afterInProgress(text, 'swallowed');
    expect(after.status).toBe(409);
    expect(after.body.code).toBe('CONFLICT');
    expect(after.body.detail).toMatch(/answer was lost/);
    expect(await copies(text)).toBe(1);
  }, 60_000);

  it('held before it left: the retry that takes the key over stores it, and the late transaction is refused by the fence', async () => {
    const text = `held ${randomUUID()}`;
    const held: NonNullable<Fault> = { kind: 'hold' };
    fault = held;
    const first = await send(text, 'held');
    expect(first.status).toBe(503);
    expect(await copies(text)).toBe(0);

    const retry = await afterInProgress(text, 'held');
    expect(retry.status).toBe(200);
    expect(await copies(text)).toBe(1);

    // The first attempt's transaction finally goes out: its fence no longer matches the key's owner.
    held.release!();
    expect(await held.settled).not.toBe('committed');
    expect(await copies(text)).toBe(1);
    expect((await send(text, 'held')).status).toBe(200); // the stored answer, replayed
    expect(await copies(text)).toBe(1);
  }, 60_000);
});
