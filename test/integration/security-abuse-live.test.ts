import { describe, expect, it } from 'vitest';
import { admin, memberToken, newTenant, newTicket, request, send } from './client.ts';
import { customer, member, open, type Socket } from './live-client.ts';
import { eventually, present } from '../support/eventually.ts';

// The live channel, probed as the issue found it: a removed member's ticket still opened a socket,
// a rotated-out widget key's socket kept receiving, and any number of sockets could pile up on
// one conversation.

const closed = (s: Socket) =>
  new Promise<number>((resolve) => {
    if (s.ws.readyState === s.ws.CLOSED) resolve(0);
    else s.ws.once('close', (code) => resolve(code));
  });
const within = <T>(ms: number, p: Promise<T>, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms)),
  ]);

describe('who may hold a live socket', () => {
  it("refuses a removed member's unexpired live ticket at the upgrade", async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const ticket = (await request('POST', admin('/live/tickets'), { token: agent.token })).body.ticket as string;
    expect((await request('DELETE', admin(`/members/${agent.id}`), { token: t.ownerToken })).status).toBe(204);
    const r = await open(`ticket=${encodeURIComponent(ticket)}`);
    expect(r).toEqual({ status: 403 });
  });

  it('closes the idle customer sockets of a widget key that was rotated out within seconds, with no event to push, and leaves the others open', async () => {
    const t = await newTenant();
    const { conversationId } = await newTicket(t);
    const other = (await send(t, 'another conversation')).body.conversationId as string;
    const idle = [await customer(t, conversationId), await customer(t, other)];
    const agent = await member(t.ownerToken);
    const rotated = await request('POST', admin('/settings/widget-key'), { token: t.ownerToken });
    expect(rotated.status).toBe(201);
    const fresh = await customer({ ...t, widgetKey: rotated.body.widgetKey }, conversationId);
    // Nothing is written to either conversation: the rotation alone closes them (the contract allows 60 s).
    const started = Date.now();
    await within(10_000, Promise.all(idle.map(closed)), "the old key's idle sockets closing");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fresh.ws.readyState).toBe(fresh.ws.OPEN);
    expect(agent.ws.readyState).toBe(agent.ws.OPEN);
    // The internal signal reaches no socket.
    expect([...fresh.frames, ...agent.frames].some((f) => String(f.type).startsWith('widget_key'))).toBe(false);
    fresh.ws.close();
    agent.ws.close();
  }, 60_000);

  it('closes a customer socket opened with a widget key that was rotated out before any event reaches it, and refuses that key at the upgrade', async () => {
    const t = await newTenant();
    const { conversationId } = await newTicket(t);
    const c = await customer(t, conversationId);
    const rotated = await request('POST', admin('/settings/widget-key'), { token: t.ownerToken });
    expect(rotated.status).toBe(201);
    const first = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'After the rotation' },
    });
    expect(first.status).toBe(201);
    await within(10_000, closed(c), "the old key's socket closing");
    expect(c.frames.some((f) => f.type === 'message.created' && f.data.message.id === first.body.message.id)).toBe(
      false,
    );
    // Still within the 30 s the key cache may hold it: the upgrade reads the key fresh.
    expect(await open(`widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${conversationId}`)).toEqual({
      status: 401,
    });
    const fresh = await customer({ ...t, widgetKey: rotated.body.widgetKey }, conversationId);
    const reply = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'Still here' },
    });
    expect(reply.status).toBe(201);
    await eventually(() =>
      present(
        fresh.frames.find((f) => f.type === 'message.created' && f.data.message.id === reply.body.message.id),
        "the reply on the new key's socket",
      ),
    );
    fresh.ws.close();
  }, 90_000);
});

describe('sockets are bounded', () => {
  it('takes 5 customer sockets on one conversation, refuses the 6th with 429, and takes one again after a close', async () => {
    const t = await newTenant();
    const { conversationId } = (await send(t, 'hello')).body;
    const five = await Promise.all(Array.from({ length: 5 }, () => customer(t, conversationId)));
    const query = `widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${conversationId}`;
    expect(await open(query)).toEqual({ status: 429 });
    // Another conversation of the same tenant is not affected.
    const other = (await send(t, 'hello again')).body.conversationId as string;
    const elsewhere = await customer(t, other);
    five[0]!.ws.close();
    await closed(five[0]!);
    // The place frees once the runtime has run $disconnect.
    const reopened = await eventually(async () => {
      const r = await open(query);
      expect('ws' in r, `the sixth socket (${JSON.stringify('status' in r ? r : 'open')})`).toBe(true);
      return r as Socket;
    });
    for (const s of [...five.slice(1), elsewhere, reopened]) s.ws.close();
  });

  it('takes 20 sockets per member and refuses the 21st with 429', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    const twenty = await Promise.all(Array.from({ length: 20 }, () => member(agent.token)));
    const ticket = (await request('POST', admin('/live/tickets'), { token: agent.token })).body.ticket as string;
    expect(await open(`ticket=${encodeURIComponent(ticket)}`)).toEqual({ status: 429 });
    // Another member of the same tenant still connects.
    const owner = await member(t.ownerToken);
    for (const s of [...twenty, owner]) s.ws.close();
  });
});
