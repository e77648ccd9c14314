import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, startReceiver, startRuntime, type Api, type Receiver, chatOn } from './webhooks/harness.ts';
import { eventually } from '../support/eventually.ts';

// The whole pipeline with nothing called by hand: a chat escalation and a ticket PATCH write their
// events, the table's stream carries them to the dispatcher, which fans them out to the queue, and
// the delivery worker posts them, signed, to a receiver on loopback.

let rt: LocalRuntime;
let a: Api;
let rcv: Receiver;
beforeAll(async () => {
  rt = await startRuntime();
  a = api(rt);
  rcv = await startReceiver((n) => (n === 0 ? 500 : 200));
}, 60_000);
afterAll(async () => {
  await rcv?.close();
  await rt?.stop();
});

const chat = (widgetKey: string, path: string, body: unknown) => chatOn(rt, widgetKey, path, body);

describe('events out through the stream, the dispatcher and the queue', () => {
  it('an escalation and a PATCH reach a subscribed receiver, signed, once per attempt with a stable id', async () => {
    const t = await a.tenant();
    const created = await a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'Helpdesk',
      config: { url: rcv.url, events: ['conversation.escalated', 'ticket.created', 'ticket.updated'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.credentials.secret as string;
    const m = await chat(t.widgetKey, '/message', { message: 'hello' });
    const e = await chat(t.widgetKey, '/escalate', {
      conversationId: m.body.conversationId,
      reason: 'Parcel arrived broken',
    });
    expect(e.status).toBe(200);
    const patched = await a.call('PATCH', `/tickets/${e.body.ticketId}`, t.token, { status: 'in_progress' });
    expect(patched.status).toBe(200);

    // Three events; the first attempt of the first one answered 500 and was retried.
    const got = await rcv.waitFor(4, 30_000);
    const wh = new Webhook(secret);
    const bodies = got.map((r) => ({
      id: r.headers['webhook-id'] as string,
      ...(wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: any }),
    }));
    const byType = new Map<string, Set<string>>();
    for (const b of bodies) byType.set(b.type, (byType.get(b.type) ?? new Set()).add(b.id));
    expect([...byType.keys()].sort()).toEqual(['conversation.escalated', 'ticket.created', 'ticket.updated']);
    for (const ids of byType.values()) expect(ids.size).toBe(1);
    expect(bodies.find((b) => b.type === 'ticket.updated')!.data.changes.status).toEqual({
      from: 'open',
      to: 'in_progress',
    });
    expect(bodies.find((b) => b.type === 'conversation.escalated')!.data.ticket.id).toBe(e.body.ticketId);
    // The worker records an attempt's outcome after the receiver has answered, so the log can trail the receiver.
    let log: Array<Record<string, any>> = [];
    await eventually(async () => {
      log = (await a.call('GET', `/integrations/${created.body.id}/deliveries`, t.token)).body.items;
      expect(log).toHaveLength(3);
      expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    });
    expect(log.map((d) => d.attempts).sort()).toEqual([1, 1, 2]);
    // Nothing the integration did not subscribe to (the chat message's message.created, conversation.created):
    // by now those events have passed the dispatcher too, and the receiver saw only the four attempts.
    const seen = rcv.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(seen).toHaveLength(4);
    expect(new Set(seen)).toEqual(new Set(['conversation.escalated', 'ticket.created', 'ticket.updated']));
  });
});
