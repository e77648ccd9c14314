import { describe, expect, it } from 'vitest';
import { buildNoneIndex, DIMS, groupMessages } from '#shared/nlu/index.ts';

describe('groupMessages', () => {
  it('groups messages that ask the same thing, biggest group first, and keeps unrelated ones apart', () => {
    const msgs = [
      'store in leeds?',
      'can I pay with klarna',
      'where is my parcel',
      'can I pay by klarna',
      'pay with klarna possible?',
      'is there a store in leeds',
      'klarna pay option',
      'do you sell gift cards',
    ];
    const groups = groupMessages(msgs, (m) => m);
    expect(groups.map((g) => g.members)).toEqual([
      ['can I pay with klarna', 'can I pay by klarna', 'pay with klarna possible?', 'klarna pay option'],
      ['store in leeds?', 'is there a store in leeds'],
      ['where is my parcel'],
      ['do you sell gift cards'],
    ]);
    expect(groups[0]!.members).toContain(groups[0]!.label);
  });

  it('lets words that most messages share weigh little among many', () => {
    const many = Array.from(
      { length: 300 },
      (_, i) => `order question ${['alpha', 'beta', 'gamma', 'delta', 'epsilon'][i % 5]}${Math.floor(i / 5)}`,
    );
    const groups = groupMessages([...many, 'cancel my order', 'where is my order'], (m) => m);
    const ofCancel = groups.find((g) => g.members.includes('cancel my order'))!;
    expect(ofCancel.members).not.toContain('where is my order');
  });

  it('handles nothing and messages of no words', () => {
    expect(groupMessages([], (m: string) => m)).toEqual([]);
    expect(groupMessages(['???', '!!!'], (m) => m).map((g) => g.members.length)).toEqual([1, 1]);
  });
});

describe('buildNoneIndex', () => {
  const intents = [
    { name: 'refund', trainingPhrases: ['I want a refund', 'refund my order please', 'how do I get my money back'] },
  ];
  it('vetoes what a none example resembles more than the answer, and nothing else', () => {
    const none = buildNoneIndex(['refund on a parking ticket from the council'], intents);
    expect(none.vetoes('I want a refund on my parking ticket from the city council', { intent: 'refund' })).toBe(true);
    expect(none.vetoes('I want a refund for my order', { intent: 'refund' })).toBe(false);
    // An article whose title says what the message says keeps its answer.
    expect(
      none.vetoes('parking ticket from the council', {
        texts: ['Parking ticket from the council', 'Bring it to the desk.'],
      }),
    ).toBe(false);
    expect(none.vetoes('parking ticket from the council', { texts: ['Opening hours', 'We open at nine.'] })).toBe(true);
  });
  it('with sentence vectors, vetoes what is nearer in meaning to a none example than to the intent, sharing no word', () => {
    // Unit vectors mixing two directions: the refund phrases point one way, the none example the other.
    const unit = (a: number, b: number) => {
      const v = new Float32Array(DIMS);
      const n = Math.hypot(a, b);
      v[0] = a / n;
      v[1] = b / n;
      return v;
    };
    const vectors = new Map<string, Float32Array>([
      ...[...intents[0]!.trainingPhrases, 'refund'].map((t) => [t, unit(1, 0.1)] as const),
      ['what is the capital of peru', unit(0.1, 1)],
    ]);
    const none = buildNoneIndex(['what is the capital of peru'], intents, {}, vectors);
    const far = 'how many people live in chile';
    expect(none.vetoes(far, { intent: 'refund' }, unit(0.2, 1), 0.5)).toBe(true);
    expect(none.vetoes(far, { intent: 'refund' }, unit(0.2, 1), 0.95)).toBe(false); // a sure answer: meaning alone does not veto it
    expect(none.vetoes(far, { intent: 'refund' }, undefined, 0.5)).toBe(false); // words only: no word in common
    expect(none.vetoes('give my cash back', { intent: 'refund' }, unit(1, 0.2), 0.5)).toBe(false);
  });
  it('without none examples vetoes nothing', () => {
    expect(buildNoneIndex([], intents).vetoes('anything', { intent: 'refund' })).toBe(false);
  });
});
