import { describe, expect, it } from 'vitest';
import { admin, memberToken, newTenant, newTicket, request, send } from './client.ts';
import { customer, member, open, type Frame, type Socket } from './live-client.ts';
import { eventually, present } from '../support/eventually.ts';

// Handoff over the live channel, as a support team and a customer see it: real sockets on the
// local runtime, the real stream and dispatcher.

describe('the live channel carries the handoff', () => {
  it('a customer and a member both see an agent reply and the ticket change', async () => {
    const t = await newTenant('Live Handoff');
    const agent = await memberToken(t, 'agent');
    const { conversationId, ticketId } = await newTicket(t);
    const [c, m] = await Promise.all([customer(t, conversationId), member(agent.token)]);

    const r = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: agent.token,
      body: { content: 'Hello, Sam here.' },
    });
    expect(r.status).toBe(201);
    const id = r.body.message.id as string;
    const onCustomer = await eventually(() =>
      present(
        c.frames.find((f) => f.type === 'message.created' && f.data.message.id === id),
        'reply on the customer socket',
      ),
    );
    const onMember = await eventually(() =>
      present(
        m.frames.find((f) => f.type === 'message.created' && f.data.message.id === id),
        'reply on the member socket',
      ),
    );
    // The customer sees the agent's name only; staff see who it was.
    expect(onCustomer.data.message).toEqual({
      id,
      role: 'agent',
      content: 'Hello, Sam here.',
      createdAt: r.body.message.createdAt,
      author: { name: r.body.message.author.name },
    });
    expect(onMember.data.message.author).toEqual({ id: agent.sub, name: r.body.message.author.name });

    // The first reply took the ticket in progress: both hear of it.
    const changed = (s: Socket) =>
      s.frames.find(
        (f) =>
          f.type === 'ticket.updated' && f.data.ticket.id === ticketId && f.data.changes.status?.to === 'in_progress',
      );
    expect(await eventually(() => present(changed(c), 'ticket.updated on the customer socket'))).toBeDefined();
    expect(
      (await eventually(() => present(changed(m), 'ticket.updated on the member socket'))).data.ticket.status,
    ).toBe('in_progress');

    const resolved = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: agent.token,
      body: { status: 'resolved', assigneeId: agent.sub },
    });
    expect(resolved.status).toBe(200);
    const onC = await eventually(() =>
      present(
        c.frames.find((f) => f.type === 'ticket.updated' && f.data.ticket.status === 'resolved'),
        'the resolution on the customer socket',
      ),
    );
    const onM = await eventually(() =>
      present(
        m.frames.find((f) => f.type === 'ticket.updated' && f.data.ticket.status === 'resolved'),
        'the resolution on the member socket',
      ),
    );
    // No staff ids reach a customer.
    expect(onC.data.ticket.assigneeId).toBeUndefined();
    expect(onC.data.changes.assigneeId).toBeUndefined();
    expect(onM.data.ticket.assigneeId).toBe(agent.sub);
    c.ws.close();
    m.ws.close();
  });

  it('ten concurrent agent messages reach the socket once each, in the order of their createdAt', async () => {
    const t = await newTenant('Live Order');
    const { conversationId } = await newTicket(t);
    const c = await customer(t, conversationId);
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request('POST', admin(`/conversations/${conversationId}/messages`), {
          token: t.ownerToken,
          body: { content: `reply ${i}` },
        }),
      ),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
    const agentFrames = () => c.frames.filter((f) => f.type === 'message.created' && f.data.message.role === 'agent');
    await eventually(() => expect(agentFrames().length, 'agent frames').toBeGreaterThanOrEqual(10));
    // A later message, once on the socket, tells that every earlier one has been carried (a stream
    // carries a conversation's records in order), so a second copy of any of them would be here by now.
    const last = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'the last one' },
    });
    await eventually(() =>
      present(
        c.frames.find((f) => f.data.message?.id === last.body.message.id),
        'the last one',
      ),
    );
    const frames = agentFrames().filter((f) => f.data.message.id !== last.body.message.id);
    expect(frames).toHaveLength(10);
    const byTime = [...rs.map((r) => r.body.message)]
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((m) => m.id);
    expect(frames.map((f) => f.data.message.id)).toEqual(byTime);
    c.ws.close();
  });

  it('refuses bad credentials on the upgrade, before any frame', async () => {
    const t = await newTenant('Live Refusals');
    const other = await newTenant('Live Other');
    const { conversationId } = await newTicket(t);
    const status = async (query: string, headers: Record<string, string> = {}) => {
      const s = await open(query, headers);
      if ('ws' in s) {
        s.ws.close();
        return 101;
      }
      return s.status;
    };
    expect(await status('')).toBe(401);
    expect(await status(`widgetKey=wk_${'x'.repeat(43)}&conversationId=${conversationId}`)).toBe(401);
    expect(
      await status(`widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=0b5e1f2a-3c4d-4e5f-8a6b-7c8d9e0f1a2b`),
    ).toBe(404);
    expect(await status(`widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=not-a-uuid`)).toBe(404);
    expect(await status(`widgetKey=${encodeURIComponent(other.widgetKey)}&conversationId=${conversationId}`)).toBe(404);
    expect(await status('ticket=lt_nope')).toBe(401);
    const issued = await request('POST', admin('/live/tickets'), { token: t.ownerToken });
    expect(await status(`ticket=${encodeURIComponent(issued.body.ticket)}`)).toBe(101);
    expect(await status(`ticket=${encodeURIComponent(issued.body.ticket)}`)).toBe(401);
    await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { widget: { allowedOrigins: ['https://shop.example'] } } },
    });
    const q = `widgetKey=${encodeURIComponent(t.widgetKey)}&conversationId=${conversationId}`;
    expect(await status(q, { origin: 'https://evil.example' })).toBe(403);
    expect(await status(q, { origin: 'https://shop.example' })).toBe(101);
  });

  it("a customer never receives another conversation's or another tenant's events; a member never another tenant's", async () => {
    const t = await newTenant('Live Isolation A');
    const u = await newTenant('Live Isolation B');
    const mine = await newTicket(t);
    const theirs = await newTicket(t);
    const foreign = await newTicket(u);
    const c = await customer(t, mine.conversationId);
    const m = await member(t.ownerToken);
    await request('POST', admin(`/conversations/${theirs.conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'for the other customer' },
    });
    await request('POST', admin(`/conversations/${foreign.conversationId}/messages`), {
      token: u.ownerToken,
      body: { content: 'other tenant' },
    });
    await send(u, 'other tenant chat');
    const ownReply = await request('POST', admin(`/conversations/${mine.conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'for you' },
    });
    await eventually(() =>
      present(
        c.frames.find((f) => f.data.message?.id === ownReply.body.message.id),
        'own reply',
      ),
    );
    await eventually(() =>
      present(
        m.frames.find((f) => f.data.message?.content === 'for the other customer'),
        'the member sees the other conversation',
      ),
    );
    // The own reply was written last: once both sockets have it, anything written before was carried.
    await eventually(() =>
      present(
        m.frames.find((f) => f.data.message?.id === ownReply.body.message.id),
        'own reply on the member socket',
      ),
    );
    const conversationOf = (f: Frame) =>
      f.data.conversationId ?? f.data.conversation?.id ?? f.data.ticket?.conversationId;
    expect(c.frames.every((f) => conversationOf(f) === mine.conversationId && f.tenantId === t.tenantId)).toBe(true);
    expect(m.frames.length).toBeGreaterThan(0);
    expect(m.frames.every((f) => f.tenantId === t.tenantId)).toBe(true);
    c.ws.close();
    m.ws.close();
  });

  it('a member removed from the team is cut off: the next event closes their socket and reaches only the others', async () => {
    const t = await newTenant('Live Removal');
    const agent = await memberToken(t, 'agent');
    const { conversationId } = await newTicket(t);
    const [gone, stays] = await Promise.all([member(agent.token), member(t.ownerToken)]);
    const closed = new Promise<number>((resolve) => gone.ws.once('close', (code) => resolve(code)));
    const first = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'before' },
    });
    await eventually(() =>
      present(
        gone.frames.find((f) => f.data.message?.id === first.body.message.id),
        'the first reply on the agent socket',
      ),
    );

    expect((await request('DELETE', admin(`/members/${agent.sub}`), { token: t.ownerToken })).status).toBe(204);
    const second = await request('POST', admin(`/conversations/${conversationId}/messages`), {
      token: t.ownerToken,
      body: { content: 'after' },
    });
    await eventually(() =>
      present(
        stays.frames.find((f) => f.data.message?.id === second.body.message.id),
        'the second reply on the owner socket',
      ),
    );
    expect(await closed).toBe(1000);
    expect(gone.frames.some((f) => f.data.message?.id === second.body.message.id)).toBe(false);
    stays.ws.close();
  });
});
