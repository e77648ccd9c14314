import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LIVE_PATH } from '#shared/edge/triggers.ts';
import { admin, baseUrl, newTenant, request, send } from './client.ts';
import { eventually, present } from '../support/eventually.ts';

// The live channel end to end through the local runtime: the real $connect handler, the table's
// stream, the real dispatcher and the management API, to a real socket.

const liveUrl = () => `${baseUrl().replace(/^http/, 'ws')}${LIVE_PATH}`;

/** Opens a socket, or resolves with the HTTP status that refused the upgrade. */
function open(url: string): Promise<{ ws: WebSocket; frames: any[] } | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const frames: any[] = [];
    ws.on('message', (d, binary) => frames.push(binary ? { binary: true } : JSON.parse(d.toString())));
    ws.once('open', () => resolve({ ws, frames }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

describe('the live channel through the local runtime', () => {
  it('a customer socket (widget key + conversation) receives message.created frames after a chat message', async () => {
    const t = await newTenant('Live Shop');
    const first = await send(t, 'hello');
    expect(first.status).toBe(200);
    const conversationId = first.body.conversationId as string;
    const s = await open(`${liveUrl()}?widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${conversationId}`);
    if (!('ws' in s)) throw new Error(`refused with ${s.status}`);
    const text = 'is anyone there about order 12345?';
    const r = await send(t, text, conversationId);
    expect(r.status).toBe(200);
    const frame = await eventually(() =>
      present(
        s.frames.find((f) => f.type === 'message.created' && f.data?.message?.content === text),
        'message.created of the user message',
      ),
    );
    expect(frame).toMatchObject({
      id: expect.any(String),
      type: 'message.created',
      timestamp: expect.any(String),
      tenantId: t.tenantId,
      data: { conversationId },
    });
    expect(frame.data.message).toMatchObject({ role: 'user', content: text });
    const reply = await eventually(() =>
      present(
        s.frames.find((f) => f.type === 'message.created' && f.data?.message?.id === r.body.message.id),
        "the assistant's message",
      ),
    );
    expect(reply.data.message).toMatchObject({ role: 'assistant', content: r.body.message.content });
    // Only this conversation's events (conversation.created of the first message may arrive too, it was still on its way).
    const conversationOf = (f: any) =>
      f.data?.conversationId ?? f.data?.conversation?.id ?? f.data?.ticket?.conversationId;
    expect(s.frames.every((f) => !f.binary && conversationOf(f) === conversationId)).toBe(true);
    s.ws.close();
  });

  it("a member socket (one-time live ticket) receives the tenant's events, and the ticket works once", async () => {
    const t = await newTenant('Live Shop 3');
    const issued = await request('POST', admin('/live/tickets'), { token: t.ownerToken });
    expect(issued.status).toBe(201);
    const url = `${liveUrl()}?ticket=${encodeURIComponent(issued.body.ticket)}`;
    const s = await open(url);
    if (!('ws' in s)) throw new Error(`refused with ${s.status}`);
    expect(await open(url)).toEqual({ status: 401 });
    const r = await send(t, 'hello there');
    expect(r.status).toBe(200);
    const conversationId = r.body.conversationId as string;
    await eventually(() =>
      present(
        s.frames.find((f) => f.type === 'conversation.created' && f.data?.conversation?.id === conversationId),
        'conversation.created',
      ),
    );
    const reply = await eventually(() =>
      present(
        s.frames.find((f) => f.type === 'message.created' && f.data?.message?.id === r.body.message.id),
        "the assistant's message",
      ),
    );
    expect(reply).toMatchObject({ tenantId: t.tenantId, data: { conversationId, message: { role: 'assistant' } } });
    s.ws.close();
  });

  it('refuses a bad widget key with 401 and an unknown conversation with 404, before any frame', async () => {
    const t = await newTenant('Live Shop 2');
    const first = await send(t, 'hello');
    expect(await open(`${liveUrl()}?widgetKey=wk_nope&conversationId=${first.body.conversationId}`)).toEqual({
      status: 401,
    });
    expect(
      await open(
        `${liveUrl()}?widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=00000000-0000-4000-8000-000000000000`,
      ),
    ).toEqual({ status: 404 });
  });
});
