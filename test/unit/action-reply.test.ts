import { describe, expect, it } from 'vitest';
import {
  dataPaths,
  DEFAULT_FAILURE_RESPONSE,
  renderWithData,
  replyOf,
  type CallOutcome,
} from '#shared/domain/events-out/actions.ts';

// What a customer reads from an action's answer (docs/API.md, Actions): the reply, or the intent's
// response filled from data and entities, never half-filled; else the failure response.

const ok = (answer: CallOutcome['answer']): CallOutcome => ({
  status: 'ok',
  latencyMs: 12,
  httpStatus: 200,
  error: null,
  answer,
});
const templates = {
  response: 'Order {{order_id}} is {{data.order.status}} ({{ data.order.eta }}).',
  failureResponse: 'No news on {{order_id}}.',
};

describe('renderWithData', () => {
  it('fills dotted paths with strings and numbers, and entities as the chat does', () => {
    expect(renderWithData(templates.response, { order_id: '12345' }, { order: { status: 'shipped', eta: 2 } })).toBe(
      'Order 12345 is shipped (2).',
    );
    expect(dataPaths(templates.response)).toEqual(['order.status', 'order.eta']);
  });

  it('gives null, never a hole, for a missing path, an empty string, an object, a list, a non-finite number or an inherited key', () => {
    for (const data of [
      { order: { status: 'shipped' } },
      { order: { status: '  ', eta: 1 } },
      { order: { status: { x: 1 }, eta: 1 } },
      { order: { status: ['a'], eta: 1 } },
      { order: { status: 'x', eta: Number.NaN } },
      { order: 'shipped' },
      {},
      { order: Object.create({ status: 'inherited', eta: 1 }) },
    ])
      expect(renderWithData(templates.response, { order_id: '1' }, data), JSON.stringify(data)).toBeNull();
  });
});

describe('replyOf', () => {
  it("takes the answer's reply first, then the filled response; handoff only with an answer shown", () => {
    expect(replyOf(ok({ reply: 'On its way.', handoff: true }), templates, { order_id: '1' })).toMatchObject({
      reply: 'On its way.',
      handoff: true,
    });
    expect(replyOf(ok({ data: { order: { status: 'late', eta: 3 } } }), templates, { order_id: '1' })).toMatchObject({
      reply: 'Order 1 is late (3).',
      handoff: false,
    });
  });

  it('turns a placeholder with no value into a failure, with the failure response and no handoff', () => {
    const r = replyOf(ok({ data: { order: { status: 'late' } }, handoff: true }), templates, { order_id: '7' });
    expect(r).toMatchObject({ reply: 'No news on 7.', handoff: false, outcome: { status: 'failed' } });
  });

  it('says the default sentence when the intent has no failure response', () => {
    const timedOut: CallOutcome = { status: 'timeout', latencyMs: 500, httpStatus: null, error: 'late', answer: null };
    expect(replyOf(timedOut, { response: 'x', failureResponse: null }, {}).reply).toBe(DEFAULT_FAILURE_RESPONSE);
  });
});
