import { describe, expect, it } from 'vitest';
import { admin, chat, expectProblem, newTenant, request, send } from './client.ts';

// Honest intents: an intent that cannot answer without an entity asks for it, remembers what it
// waits for, and answers once the customer gives it; a reply never shows a hole.

const post = (t: { ownerToken: string }, body: unknown) =>
  request('POST', admin('/intents'), { token: t.ownerToken, body });
const GIFT = {
  name: 'gift_card_balance',
  trainingPhrases: [
    'what is the balance of my gift card',
    'gift card balance',
    'how much is left on my gift card',
    'check gift card balance',
  ],
};

describe('required entities', () => {
  it('the starter order_status asks for the number, answers once it comes, and never invents a status', async () => {
    const t = await newTenant();
    const asked = await send(t, 'where is my order');
    expect(asked.body.metadata.intentDetected).toBe('order_status');
    expect(asked.body.message.content).toBe(
      'Which order is it? Please give me the order number from your confirmation email.',
    );
    const id = asked.body.conversationId as string;
    const answered = await send(t, '55123', id);
    expect(answered.body.metadata).toMatchObject({
      intentDetected: 'order_status',
      confidence: 1,
      entitiesExtracted: { order_id: '55123' },
    });
    expect(answered.body.message.content).toContain('order 55123');
    expect(answered.body.message.content).not.toMatch(/being processed|\{\{|order (from|its)\b/);
    // Answered: the next bare number is read as any other message.
    expect((await send(t, '55123', id)).body.metadata.intentDetected).not.toBe('order_status');

    const direct = await send(t, 'where is my order #48213?');
    expect(direct.body.message.content).toContain('order 48213');
  });

  it('a message that does not give the entity is read as any other, and the question is dropped', async () => {
    const t = await newTenant();
    const id = (await send(t, 'has my order shipped yet')).body.conversationId as string;
    const moved = await send(t, 'hello there', id);
    expect(moved.body.metadata.intentDetected).toBe('greeting');
    expect((await send(t, '4411', id)).body.metadata.intentDetected).not.toBe('order_status');

    // Handed to a person meanwhile: the question is dropped too.
    const other = (await send(t, 'where is my order')).body.conversationId as string;
    expect(
      (
        await request('POST', chat('/escalate'), {
          widgetKey: t.widgetKey,
          body: { conversationId: other, reason: 'late' },
        })
      ).status,
    ).toBe(200);
    expect((await send(t, '55123', other)).body.metadata.intentDetected).not.toBe('order_status');
  });

  it('a team intent with a required entity and its prompt, then a placeholder entity without one', async () => {
    const t = await newTenant();
    const c = await post(t, {
      ...GIFT,
      response: 'Card {{card}} has a balance you can see at checkout once you enter it.',
      entities: [
        {
          name: 'card',
          type: 'regex',
          pattern: String.raw`\bGC-\d{4}\b`,
          required: true,
          prompt: 'What is the card number (GC-1234)?',
        },
      ],
    });
    expect(c.status).toBe(201);
    expect(c.body.entities).toEqual([
      {
        name: 'card',
        type: 'regex',
        pattern: String.raw`\bGC-\d{4}\b`,
        required: true,
        prompt: 'What is the card number (GC-1234)?',
      },
    ]);
    const asked = await send(t, 'what is the balance of my gift card');
    expect(asked.body.message.content).toBe('What is the card number (GC-1234)?');
    const done = await send(t, 'it is GC-7781', asked.body.conversationId);
    expect(done.body.message.content).toBe('Card GC-7781 has a balance you can see at checkout once you enter it.');

    // A placeholder's entity is waited for even when not marked required: a plain question, never a hole.
    const put = await request('PUT', admin(`/intents/${c.body.id}`), {
      token: t.ownerToken,
      body: {
        ...GIFT,
        response: 'Card {{card}} noted.',
        entities: [{ name: 'card', type: 'regex', pattern: String.raw`\bGC-\d{4}\b` }],
      },
    });
    expect(put.status).toBe(200);
    expect((await send(t, 'gift card balance')).body.message.content).toBe('Could you tell me your card?');
  });

  it('refuses a template with a placeholder of no entity, and a prompt without required, with a clear 400', async () => {
    const t = await newTenant();
    const hole = await post(t, { ...GIFT, response: 'Your balance for {{card}} is fine.' });
    expectProblem(hole, 400, 'VALIDATION_ERROR');
    expect(hole.body.errors).toEqual([
      {
        path: 'response',
        message:
          'uses {{card}}, which is neither one of its entities nor {{hours}}, {{openNow}}, {{nextOpen}}, {{contactEmail}}',
      },
    ]);
    const prompt = await post(t, {
      ...GIFT,
      response: 'Fine.',
      entities: [{ name: 'card', type: 'number', prompt: 'Which card?' }],
    });
    expectProblem(prompt, 400, 'VALIDATION_ERROR');
    expect(prompt.body.errors).toEqual([{ path: 'entities.0.prompt', message: 'is only allowed with required: true' }]);
    expect(
      (await request('GET', admin('/intents'), { token: t.ownerToken })).body.items.some(
        (i: { name: string }) => i.name === GIFT.name,
      ),
    ).toBe(false);
  });
});
