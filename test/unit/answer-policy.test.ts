import { describe, expect, it } from 'vitest';
import type { Intent } from '#shared/data/intents.ts';
import { trainModel } from '#shared/domain/assistant/assistant.ts';
import { withEverydayPhrases } from '#shared/domain/assistant/everyday.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import {
  answer,
  articleProbability,
  buildKnowledgeIndex,
  choose,
  DEFAULT_ARTICLE_THRESHOLD,
  DEFAULT_INTENT_THRESHOLD,
  intentProbability,
  prepareArticle,
  rng,
  wordVectors,
} from '#shared/nlu/index.ts';
import { fitLogistic } from '../bench/answers/fit.ts';
import { calibration } from '../bench/answers/score.ts';

const intent = (name: string, trainingPhrases: string[], response = `(${name})`): Intent => ({
  id: name,
  name,
  description: '',
  trainingPhrases,
  response,
  entities: [],
  action: 'reply',
  enabled: true,
  createdAt: '',
  updatedAt: '',
});

// A small coffee shop: the order-status intent shares "order" with the gift-wrapping article.
const model = trainModel(1, [
  intent('order_status', [
    'where is my order',
    'track my order',
    'has my order shipped yet',
    'order status',
    'when will my order arrive',
    'my order has not arrived',
  ]),
  intent('greeting', ['hi', 'hello', 'good morning', 'hey there', 'good afternoon', 'hiya']),
  intent('opening_hours', [
    'when are you open',
    'what are your opening hours',
    'are you open on sunday',
    'what time do you close',
    'opening times',
    'when do you open',
  ]),
]);
const index = buildKnowledgeIndex(
  [
    {
      id: 'wrap',
      title: 'Gift wrapping and gift messages',
      body: 'We gift wrap any order for 3 EUR in recycled paper. Add a gift message of up to 200 characters at checkout; it is printed on a card inside the parcel and the prices are left off the packing slip.',
    },
    {
      id: 'aurora',
      title: 'Cleaning the Aurora espresso machine',
      body: 'Descale the Aurora espresso machine every month with our descaling tablets. Rinse the portafilter after each use and wipe the steam wand straight away.',
    },
    {
      id: 'pay',
      title: 'Ways to pay',
      body: 'We accept Visa, Mastercard, American Express, PayPal and Apple Pay. Payment is taken when your order ships.',
    },
  ].map((a) => prepareArticle(a)),
  { wordVectors: wordVectors() },
);
const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
const ask = (text: string) => answer(model, index, text, th, 'FALLBACK');

describe('answer policy', () => {
  it('an intent that explains one word of the message loses to the article that explains it', () => {
    const r = ask('Can you gift wrap my order and add a message?');
    expect(r.nlu.intent).toBeNull();
    expect(r.knowledge?.articleId).toBe('wrap');
    expect(r.knowledge!.confidence).toBeGreaterThanOrEqual(th.article);
    expect(r.knowledge!.sources[0]!.articleId).toBe('wrap');
    // The intent still shows in the ranking, below the article's confidence.
    expect(r.nlu.ranking[0]!.intent).toBe('order_status');
    expect(r.nlu.ranking[0]!.confidence).toBeLessThan(r.knowledge!.confidence);
  });

  it('the intent answers what its phrases say', () => {
    const r = ask('where is my order? it has not arrived');
    expect(r.nlu.intent?.name).toBe('order_status');
    expect(r.knowledge).toBeNull();
    expect(r.nlu.confidence).toBe(r.nlu.ranking[0]!.confidence);
  });

  // Not met yet: "does the Aurora come in red?" gets the cleaning article at about 0.7 (the title
  // covers the product name, and nothing else in the message is known to the knowledge base).
  it.todo('a product name alone does not answer');

  it('a question about a product that its article does not answer is less sure than one it answers', () => {
    const other = ask('does the Aurora come in red?');
    const own = ask('how do I descale the Aurora?');
    expect(own.knowledge?.articleId).toBe('aurora');
    expect(other.knowledge?.confidence ?? 0).toBeLessThan(own.knowledge!.confidence);
  });

  it('an article answers at or above its threshold only, with the sources that reach it', () => {
    const r = ask('do you take paypal?');
    expect(r.knowledge?.articleId).toBe('pay');
    const at = r.knowledge!.confidence;
    expect(answer(model, index, 'do you take paypal?', { ...th, article: at }, '').knowledge).not.toBeNull();
    expect(answer(model, index, 'do you take paypal?', { ...th, article: at + 0.001 }, '').knowledge).toBeNull();
    expect(answer(model, null, 'do you take paypal?', th, '').knowledge).toBeNull();
  });

  it('a request for a person is honoured beside a problem that an article answers', () => {
    const shop = trainModel(
      1,
      starterIntents.map((i) => ({ ...intent(i.name, i.trainingPhrases, i.response), ...i, starter: true })),
    );
    const delivery = buildKnowledgeIndex(
      [
        {
          id: 'damaged',
          title: 'A machine that arrived damaged',
          body: 'If your espresso machine arrived damaged or broken, send us a photo of it and of the box within 7 days and we send a new one.',
        },
        ...[0, 1, 2].map((k) => ({ id: `other${k}`, title: `Descaling, part ${k}`, body: 'Descale every month.' })),
      ].map((a) => prepareArticle(a)),
      { wordVectors: wordVectors() },
    );
    const asked = answer(shop, delivery, 'my espresso machine arrived broken, I need to talk to a person', th, '');
    expect(asked.nlu.intent?.name).toBe('human_agent');
    expect(asked.knowledge).toBeNull();
    // Without the request, the article answers the problem; a clause that names no person asks for none.
    expect(answer(shop, delivery, 'my espresso machine arrived broken', th, '').knowledge?.articleId).toBe('damaged');
    expect(
      answer(shop, delivery, 'my espresso machine arrived broken, I would like a new one', th, '').nlu.intent?.name,
    ).not.toBe('human_agent');
  });

  it('choose: the better candidate at its own threshold, a tie to the intent, else the fallback', () => {
    expect(choose(0.6, 0.7, { intent: 0.5, article: 0.5 })).toBe('article');
    expect(choose(0.6, 0.7, { intent: 0.5, article: 0.8 })).toBe('intent');
    expect(choose(0.6, 0.6, { intent: 0.5, article: 0.5 })).toBe('intent');
    expect(choose(0.4, null, { intent: 0.5, article: 0.5 })).toBe('fallback');
    expect(choose(null, null, { intent: 0, article: 0 })).toBe('fallback');
  });
});

describe('everyday phrases', () => {
  // A pizzeria's team wrote six phrases for its goodbye and its hand-over; customers use others.
  const pizzeria = (bye: string, human: string) =>
    trainModel(1, [
      intent('book_table', [
        'can i book a table',
        'table for two tonight',
        'reserve a table for 4 on friday',
        'do you have space saturday at 8',
        'i want to make a reservation',
        'book for 6 people',
      ]),
      intent('opening_hours', [
        'when are you open',
        'what time do you close',
        'are you open on sunday',
        'opening hours',
        'what time do you open for lunch',
        'are you open on bank holidays',
      ]),
      intent(bye, ['bye', 'goodbye', 'see you', 'that is all, thanks', 'have a nice evening', 'cheers, bye']),
      intent(human, [
        'talk to a person',
        'i want an agent',
        'speak to someone',
        'can i talk to staff',
        'contact the manager',
        'i need to speak to the team',
      ]),
    ]);
  const named = pizzeria('goodbye', 'human_agent');
  const unnamed = pizzeria('sign_off', 'contact_person');
  const says = (m: ReturnType<typeof trainModel>, text: string) => answer(m, null, text, th, 'FALLBACK').nlu;

  it('a small-talk intent also knows the everyday ways customers say it', () => {
    for (const [text, kind, other] of [
      ['gotta run, take care', 'goodbye', 'sign_off'],
      ['catch you later', 'goodbye', 'sign_off'],
      ['get me a human', 'human_agent', 'contact_person'],
      ['i want a real person not a bot', 'human_agent', 'contact_person'],
    ] as const) {
      const r = says(named, text);
      expect(r.intent?.name, text).toBe(kind);
      expect(r.confidence).toBeGreaterThanOrEqual(th.intent);
      // The same phrases under names of no small-talk kind: the team's six phrases alone do not reach it.
      const u = says(unnamed, text);
      expect(u.intent, text).toBeNull();
      expect(u.ranking[0]?.intent).toBe(other);
    }
    // The tenant's own intents keep their answers.
    expect(says(named, 'can i book a table for 2 at 7').intent?.name).toBe('book_table');
    expect(says(named, 'when do you close today').intent?.name).toBe('opening_hours');
    expect(says(named, 'do you do gluten free pizza').intent).toBeNull();
  });

  it('the kind is read from the name; one intent of each kind gets its phrases', () => {
    const phrases = (name: string) => starterIntents.find((i) => i.name === name)!.trainingPhrases;
    const out = withEverydayPhrases([
      { name: 'talk_to_human', trainingPhrases: ['a person please'] },
      { name: 'agent', trainingPhrases: ['an agent'] },
      { name: 'hello', trainingPhrases: ['hi'] },
      { name: 'order_status', trainingPhrases: ['where is my order'] },
    ]);
    expect(out.map((i) => i.name)).toEqual(['talk_to_human', 'agent', 'hello', 'order_status']);
    expect(out[1]!.everydayPhrases).toEqual(phrases('human_agent')); // "agent" comes first by name
    expect(out[0]!.everydayPhrases).toBeUndefined();
    expect(out[2]!.everydayPhrases).toEqual(phrases('greeting'));
    expect(out[3]!.everydayPhrases).toBeUndefined(); // a shop's own intents are its own
  });
});

describe('calibration', () => {
  it('probabilities grow with the evidence and stay in 0..1', () => {
    const base = {
      confidence: 0.5,
      margin: 0.2,
      cover: 0.5,
      similarity: 0.3,
      spelling: 0.4,
      candidates: 10,
      inScope: 0.7,
    };
    expect(intentProbability({ ...base, confidence: 0.9 })).toBeGreaterThan(intentProbability(base));
    expect(intentProbability({ ...base, cover: 0.9 })).toBeGreaterThan(intentProbability(base));
    expect(intentProbability({ ...base, spelling: 0.9 })).toBeGreaterThan(intentProbability(base));
    // With the encoder's evidence: closer in meaning, and more of the classifier's mass on its best intents.
    const meant = { ...base, meaning: 0.6, meaningMargin: 0.1 };
    expect(intentProbability({ ...meant, meaning: 0.8 })).toBeGreaterThan(intentProbability(meant));
    expect(intentProbability({ ...meant, inScope: 0.99 })).toBeGreaterThan(intentProbability(meant));
    expect(intentProbability({ ...base, inScope: 0.99 })).toBe(intentProbability(base)); // words only: not a feature
    const f = {
      key: 0.5,
      title: 0.3,
      question: 0,
      passage: 0.5,
      similarity: 0.3,
      unseen: 0,
      body: 0,
      semantic: 0,
      spelling: 0.2,
    };
    const a = { confidence: 0.3, margin: 0.1, features: f, candidates: 10 };
    expect(articleProbability({ ...a, features: { ...f, passage: 0.9 } })).toBeGreaterThan(articleProbability(a));
    expect(articleProbability({ ...a, features: { ...f, spelling: 0.8 } })).toBeGreaterThan(articleProbability(a));
    for (const p of [
      intentProbability({ ...base, confidence: 1, margin: 1 }),
      articleProbability({ ...a, confidence: 0 }),
    ]) {
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThanOrEqual(1);
    }
  });

  it('a logistic fit on a small fixture gives probabilities whose calibration error is small', () => {
    // Right with probability sigmoid(3 * (x - 0.5)): the fit must recover it.
    const rand = rng(7);
    const rows = Array.from({ length: 4000 }, () => {
      const x = rand();
      return { x: [1, x], y: rand() < 1 / (1 + Math.exp(-3 * (x - 0.5))) ? 1 : 0, w: 1 };
    });
    const [b0, b1] = fitLogistic(rows);
    expect(b1).toBeGreaterThan(2.3);
    expect(b1).toBeLessThan(3.7);
    expect(b0! / b1!).toBeCloseTo(-0.5, 1);
    const p = rows.map((r) => ({ confidence: 1 / (1 + Math.exp(-(b0! + b1! * r.x[1]!))), right: r.y === 1 }));
    expect(calibration(p).ece).toBeLessThan(0.04);
    // Always answering 0.9 where half are right is badly calibrated.
    expect(calibration(p.map((x) => ({ ...x, confidence: 0.9 }))).ece).toBeGreaterThan(0.3);
  });
});
