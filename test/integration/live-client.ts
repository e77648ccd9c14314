import WebSocket from 'ws';
import { LIVE_PATH } from '#shared/edge/triggers.ts';
import { admin, baseUrl, request, type TestTenant } from './client.ts';

// Sockets on the local runtime's live channel, as the widget and the dashboard open them.

const liveUrl = () => `${baseUrl().replace(/^http/, 'ws')}${LIVE_PATH}`;
export type Frame = { id: string; type: string; tenantId: string; data: any };
export interface Socket {
  ws: WebSocket;
  frames: Frame[];
}

export function open(query: string, headers: Record<string, string> = {}): Promise<Socket | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${liveUrl()}?${query}`, { headers });
    const frames: Frame[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as Frame));
    ws.once('open', () => resolve({ ws, frames }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}
export const must = (s: Socket | { status: number }): Socket => {
  if ('status' in s) throw new Error(`refused with ${s.status}`);
  return s;
};
export const customer = async (t: TestTenant, conversationId: string) =>
  must(await open(`widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${conversationId}`));
export const member = async (token: string) => {
  const r = await request('POST', admin('/live/tickets'), { token });
  return must(await open(`ticket=${encodeURIComponent(r.body.ticket)}`));
};
