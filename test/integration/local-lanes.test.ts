import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';

// The local runtime's lanes (local/lanes.ts): with them, as `npm start` runs, each widget key's chat
// invocations run on a thread of their own, so a tenant whose invocation holds its thread does not
// hold another tenant's answer, as Lambda's sandboxes keep them apart. The chat route's handler is
// a stand-in (test/fixtures/local-lanes/chat.ts) that can hold its thread for 1.5 s.

const stub = fileURLToPath(new URL('../fixtures/local-lanes/chat.ts', import.meta.url));
const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));
const resolveHandler = (name: string) => (name === 'chat/send-message' ? stub : join(functionsDir, `${name}.ts`));

const runtimes: LocalRuntime[] = [];
afterAll(async () => {
  for (const rt of runtimes) await rt.stop();
});

async function runtime(lanes: boolean) {
  const rt = await startLocalRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `local-lanes-${lanes}-${process.pid}-${Date.now().toString(36)}`,
    resolveHandler,
    lanes,
    stream: false,
    indexer: false,
    schedule: false,
    smtpPort: false,
  });
  runtimes.push(rt);
  return rt;
}

/** Sends a chat message; resolves with its answer and the order in which answers came back. */
function sender(rt: LocalRuntime) {
  const order: string[] = [];
  const send = async (widgetKey: string, message: string) => {
    const res = await fetch(`${rt.url}/api/v1/chat/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-widget-key': widgetKey },
      body: JSON.stringify({ message }),
    });
    const body = (await res.json()) as { threadId: number; message: string };
    order.push(`${widgetKey}:${message}`);
    return { status: res.status, ...body };
  };
  return { order, send };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('lanes', () => {
  it("answer another tenant while one tenant's invocation holds its thread; a key keeps its lane", async () => {
    const { order, send } = sender(await runtime(true));
    const warm = await Promise.all([send('wk_lane_a', 'hello'), send('wk_lane_b', 'hello')]);
    expect(warm.map((w) => w.status)).toEqual([200, 200]);
    const spinning = send('wk_lane_a', 'spin');
    await pause(300);
    const other = await send('wk_lane_b', 'hello again');
    const held = await spinning;
    expect(order.slice(-2)).toEqual(['wk_lane_b:hello again', 'wk_lane_a:spin']);
    // Worker threads (the main thread is 0), one per key, the same on every message of a key.
    expect(held.threadId).not.toBe(0);
    expect(other.threadId).not.toBe(held.threadId);
    expect(held.threadId).toBe(warm[0]!.threadId);
    expect(other.threadId).toBe(warm[1]!.threadId);
  });

  it('without them (the runtime the tests use), one invocation that holds the thread holds every tenant', async () => {
    const { order, send } = sender(await runtime(false));
    await Promise.all([send('wk_lane_a', 'hello'), send('wk_lane_b', 'hello')]);
    const spinning = send('wk_lane_a', 'spin');
    await pause(300);
    const other = await send('wk_lane_b', 'hello again');
    await spinning;
    expect(order.slice(-2)).toEqual(['wk_lane_a:spin', 'wk_lane_b:hello again']);
    expect(other.threadId).toBe(0);
  });
});
