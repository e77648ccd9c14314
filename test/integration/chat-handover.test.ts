import { describe, expect, it } from 'vitest';
import { admin, chat, newTenant, request, send, untilIndexed } from './client.ts';

// Handing over: a first message that asks for a person, and the reason typed in the widget's
// "Talk to a person" form, which the team reads in the transcript.

const detail = (t: { ownerToken: string }, id: string) =>
  request('GET', admin(`/conversations/${id}`), { token: t.ownerToken });

describe('handing over', () => {
  it.each(['can I talk to a human', 'agent please'])(
    'a first message "%s" hands over at once, in one handover sentence',
    async (text) => {
      const t = await newTenant();
      const r = await send(t, text);
      expect(r.status).toBe(200);
      expect(r.body.metadata).toMatchObject({
        intentDetected: 'human_agent',
        ticketId: expect.stringMatching(/^tkt_/),
        ticketNumber: 1,
      });
      expect(r.body.message.content).toBe(
        'I am handing you over to our team. Your ticket number is #1; a person will get back to you here.',
      );
      const d = await detail(t, r.body.conversationId);
      expect(d.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
        ['user', text],
        ['assistant', r.body.message.content],
      ]);
      expect(d.body.tickets[0].reason).toBe(`Requested in chat: ${text}`);
    },
  );

  it('a request for a person beside a problem that an article answers hands over; the problem alone gets the article', async () => {
    const t = await newTenant();
    const article = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: {
        title: 'A parcel that arrived damaged',
        body: 'If your parcel arrived damaged, send us a photo of the parcel and of what is inside within 7 days, and we send a new one at our cost.',
      },
    });
    expect(article.status).toBe(201);
    // The clause that asks for a person is read in meaning too: compared once the vectors are stored.
    await untilIndexed(t);
    const alone = await send(t, 'my parcel arrived damaged');
    expect(alone.body.metadata.intentDetected).toBe('knowledge_base');
    const asked = await send(t, 'my parcel arrived damaged, I need to talk to a person');
    expect(asked.body.metadata).toMatchObject({
      intentDetected: 'human_agent',
      ticketId: expect.stringMatching(/^tkt_/),
    });
  });

  it('a reason sent with handover: true starts the conversation, is in the transcript, and nothing else answers it', async () => {
    const t = await newTenant();
    const reason = 'My mug arrived broken';
    const r = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      body: { message: reason, handover: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata).toMatchObject({ intentDetected: 'handover', confidence: 1, ticketNumber: 1 });
    expect(r.body.message.content).toBe(
      "I've passed this conversation to our support team. Your ticket number is #1; a person will get back to you here.",
    );
    const d = await detail(t, r.body.conversationId);
    expect(d.body.conversation.status).toBe('escalated');
    expect(d.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', reason],
      ['assistant', r.body.message.content],
    ]);
    expect(d.body.tickets.map((x: { reason: string }) => x.reason)).toEqual([`Requested in chat: ${reason}`]);
    // Counted as neither an intent's answer nor a fallback.
    const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
    expect(stats.body.kpis.fallbacks).toBe(0);
    expect(stats.body.topIntents).toEqual([]);
  });

  it('later in a conversation the typed reason joins the transcript, and an open ticket is joined, not doubled', async () => {
    const t = await newTenant();
    const first = await send(t, 'hello there');
    const id = first.body.conversationId as string;
    const r = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, message: 'The tracking page says lost', handover: true },
    });
    expect(r.body.metadata.ticketNumber).toBe(1);
    // The team has it now: the assistant is silent, and the message joins the same ticket.
    const again = await request('POST', chat('/message'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, message: 'Please hurry', handover: true },
    });
    expect(again.body).toMatchObject({ message: null, handledBy: 'agent' });
    const d = await detail(t, id);
    expect(
      d.body.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content),
    ).toEqual(['hello there', 'The tracking page says lost', 'Please hurry']);
    expect(d.body.tickets).toHaveLength(1);
    expect(
      (await request('POST', chat('/message'), { widgetKey: t.widgetKey, body: { message: 'x', handover: 'yes' } }))
        .status,
    ).toBe(400);
  });

  it('after the hand-over the assistant is silent while the ticket is open or waiting, counts the messages, and answers again once it is resolved', async () => {
    const t = await newTenant();
    const handed = await send(t, 'can I talk to a human');
    const id = handed.body.conversationId as string;
    const ticketId = handed.body.metadata.ticketId as string;
    const say = (text: string) => send(t, text, id);
    const ticket = async () =>
      (await request('GET', admin(`/tickets/${ticketId}`), { token: t.ownerToken })).body.ticket;

    // Open, nobody has answered yet: greetings and questions alike get no answer from the assistant.
    const quiet = await say('hello? also, what are your opening hours');
    expect(quiet.status).toBe(200);
    expect(quiet.body).toEqual({
      conversationId: id,
      message: null,
      metadata: expect.objectContaining({ intentDetected: expect.any(String) }),
      handledBy: 'agent',
    });
    // Asking for a person again opens nothing.
    expect((await say('agent please')).body).toMatchObject({ message: null, handledBy: 'agent' });
    expect((await ticket()).status).toBe('open');

    // Waiting (for the customer): their message takes it back to open, still without an assistant answer.
    expect(
      (await request('PATCH', admin(`/tickets/${ticketId}`), { token: t.ownerToken, body: { status: 'waiting' } }))
        .status,
    ).toBe(200);
    expect((await say('here is the photo you asked for')).body).toMatchObject({ message: null, handledBy: 'agent' });
    expect((await ticket()).status).toBe('open');

    const d = await detail(t, id);
    expect(d.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'user', 'user']);
    expect(d.body.tickets).toHaveLength(1);
    // Every customer message counts in the statistics.
    const stats = await request('GET', admin('/stats'), { token: t.ownerToken });
    expect(stats.body.kpis).toMatchObject({ messages: 4, escalations: 1 });

    // Resolved: the assistant answers again (and the ticket reopens, as before).
    expect(
      (await request('PATCH', admin(`/tickets/${ticketId}`), { token: t.ownerToken, body: { status: 'resolved' } }))
        .status,
    ).toBe(200);
    const back = await say('thanks a lot');
    expect(back.body.message).toMatchObject({ role: 'assistant' });
    expect(back.body.handledBy).toBeUndefined();
  });
});
