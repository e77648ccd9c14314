import { describe, expect, it } from 'vitest';
import { admin, chat, newTenant, request, send, type TestTenant } from './client.ts';

// What the Unanswered screen lists beyond fallbacks and unsure answers: the answers from the team's
// content in a conversation rated low (never small talk), and a confident answer the customer at
// once handed over or called wrong. Through the chat API and GET /nlu/unanswered.

type Group = { label: string; examples: Array<{ message: string; conversationId: string }> };
const listed = async (t: TestTenant) => {
  const r = await request('GET', admin('/nlu/unanswered'), { token: t.ownerToken });
  expect(r.status).toBe(200);
  return (r.body.groups as Group[]).flatMap((g) => g.examples);
};
const taught = new Set<string>();
const REFUND_ASK = 'I want a refund';
const REFUND = {
  name: 'refund_request',
  response: 'Refunds take five days.',
  trainingPhrases: ['I want a refund', 'refund my order please', 'how do I get my money back', 'refund status'],
};

/** A conversation that asked for a refund and got the team's intent's confident answer (one that does not escalate). */
async function answeredRefund(t: TestTenant, greetFirst = false) {
  if (!taught.has(t.tenantId)) {
    expect((await request('POST', admin('/intents'), { token: t.ownerToken, body: REFUND })).status).toBe(201);
    taught.add(t.tenantId);
  }
  let conversationId: string | undefined;
  if (greetFirst) {
    const hi = await send(t, 'hi there');
    expect(hi.body.metadata.intentDetected).toBe('greeting');
    conversationId = hi.body.conversationId;
  }
  const r = await send(t, REFUND_ASK, conversationId);
  expect(r.status).toBe(200);
  expect(r.body.metadata.intentDetected).toBe('refund_request');
  expect(r.body.metadata.confidence).toBeGreaterThanOrEqual(0.5);
  return r.body.conversationId as string;
}

describe('the unanswered list: what a customer says went wrong', () => {
  it('a low rating lists the answers from content only, not the greeting or the thanks', async () => {
    const t = await newTenant('Rated Bikes');
    const id = await answeredRefund(t, true);
    await send(t, 'thanks', id);
    // Handed over after the thanks (small talk): nothing is listed for it; a ticket lets the customer rate.
    const esc = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, reason: 'x' },
    });
    expect(esc.status).toBe(200);
    expect(await listed(t)).toEqual([]);
    const rated = await request('POST', chat(`/conversations/${id}/rating`), {
      widgetKey: t.widgetKey,
      body: { score: 2, comment: 'the hours were wrong' },
    });
    expect(rated.status).toBe(200);
    expect((await listed(t)).map((e) => e.message)).toEqual([REFUND_ASK]);
  });

  it('a confident answer followed at once by "that\'s wrong" is listed; a later unrelated message is not a verdict', async () => {
    const t = await newTenant('Wrong Bikes');
    const id = await answeredRefund(t);
    expect((await send(t, "no, that's not what I asked", id)).status).toBe(200);
    expect((await listed(t)).filter((e) => e.conversationId === id).map((e) => e.message)).toContain(REFUND_ASK);

    // "Is that wrong size returnable?" asks something; it calls nothing wrong.
    const other = await answeredRefund(t);
    await send(t, 'is that wrong size returnable?', other);
    expect((await listed(t)).some((e) => e.conversationId === other && e.message === REFUND_ASK)).toBe(false);
  });

  it('a confident answer followed at once by a hand-over is listed; a greeting before one is not', async () => {
    const t = await newTenant('Handover Bikes');
    const id = await answeredRefund(t);
    const esc = await request('POST', chat('/escalate'), {
      widgetKey: t.widgetKey,
      body: { conversationId: id, reason: 'that is not it' },
    });
    expect(esc.status).toBe(200);
    expect((await listed(t)).filter((e) => e.conversationId === id).map((e) => e.message)).toEqual([REFUND_ASK]);

    // Asking for a person in words, right after a greeting: the greeting is small talk, never listed.
    const hi = await send(t, 'hello');
    const person = await send(t, 'I want to talk to a human', hi.body.conversationId);
    expect(person.body.metadata.ticketId).toBeTruthy();
    expect((await listed(t)).some((e) => e.conversationId === hi.body.conversationId)).toBe(false);

    // Asking in words right after a confident answer lists it, as the button does.
    const asked = await answeredRefund(t);
    await send(t, 'I want to talk to a human', asked);
    expect((await listed(t)).filter((e) => e.conversationId === asked).map((e) => e.message)).toEqual([REFUND_ASK]);
  });
});
