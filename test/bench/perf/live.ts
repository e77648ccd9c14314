import WebSocket from 'ws';
import { percentile } from './util.ts';

// The live channel end to end: an agent's POST, the event item, the table stream (polled), the
// dispatcher, the management API and the customer's socket. Time from the POST's send to the
// frame that carries the same message id.

export async function agentToSocket(
  baseUrl: string,
  liveUrl: string,
  widgetKey: string,
  ownerToken: string,
  n: number,
) {
  const start = await fetch(`${baseUrl}/api/v1/chat/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-widget-key': widgetKey },
    body: JSON.stringify({ message: 'hello' }),
  });
  const conversationId = ((await start.json()) as { conversationId: string }).conversationId;
  const ws = new WebSocket(`${liveUrl}?widgetKey=${encodeURIComponent(widgetKey)}&conversationId=${conversationId}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const waiting = new Map<string, (at: number) => void>();
  const early = new Map<string, number>();
  ws.on('message', (data) => {
    const at = performance.now();
    const e = JSON.parse(String(data)) as { type: string; data: { message?: { id: string } } };
    const id = e.type === 'message.created' ? e.data.message?.id : undefined;
    if (!id) return;
    const done = waiting.get(id);
    if (done) done(at);
    else early.set(id, at);
  });
  const ms: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const sent = performance.now();
      const r = await fetch(`${baseUrl}/api/v1/admin/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ownerToken}` },
        body: JSON.stringify({ content: `reply ${i}` }),
      });
      const id = ((await r.json()) as { message: { id: string } }).message.id;
      const at =
        early.get(id) ??
        (await new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no frame for message ${id} within 10 s`)), 10_000);
          waiting.set(id, (t) => {
            clearTimeout(timer);
            resolve(t);
          });
        }));
      ms.push(at - sent);
    }
  } finally {
    ws.close();
  }
  return { n, p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms) };
}

// As a script: `node --import tsx test/bench/perf/live.ts <dynamodb endpoint>` prints one JSON line.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { startLocalRuntime } = await import('../../../local/runtime.ts');
  const rt = await startLocalRuntime({ tableName: `bench-live-${process.pid}`, dynamodbEndpoint: process.argv[2]! });
  try {
    const token = await rt.idp.token({ sub: `bench-live-${process.pid}`, email: 'live@bench.example' });
    const onboard = await fetch(`${rt.url}/api/v1/admin/auth/onboard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ tenantName: 'Bench Live' }),
    });
    const { widgetKey } = (await onboard.json()) as { widgetKey: string };
    process.stdout.write(`${JSON.stringify(await agentToSocket(rt.url, rt.liveUrl, widgetKey, token, 100))}\n`);
  } finally {
    await rt.stop();
  }
}
