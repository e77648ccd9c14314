import { describe, expect, it } from 'vitest';
import {
  buildKnowledgeIndex,
  encoder,
  type StoredArticle,
  textsToEmbed,
  type TextVectors,
  trainClassifier,
} from '#shared/nlu/index.ts';

// The sentence encoder's evidence in the models, with the real model on a small shop.
const intents = [
  { name: 'sell_bikes', trainingPhrases: ['do you sell bikes', 'can I buy a bike here', 'which bikes do you stock'] },
  { name: 'opening_hours', trainingPhrases: ['when are you open', 'what time do you close', 'are you open on sunday'] },
  { name: 'track_order', trainingPhrases: ['where is my order', 'track my parcel', 'has my order shipped'] },
];
const articles: StoredArticle[] = [
  {
    id: 'refunds',
    title: 'Refunds',
    url: null,
    tags: [],
    questions: [],
    passages: ['We refund the full price within 30 days of purchase.'],
  },
  {
    id: 'delivery',
    title: 'Delivery',
    url: null,
    tags: [],
    questions: [],
    passages: ['Parcels arrive in two to three working days.'],
  },
  {
    id: 'gift-wrap',
    title: 'Gift wrapping',
    url: null,
    tags: [],
    questions: [],
    passages: ['Any order can be gift wrapped with a card.'],
  },
];
const messages = ['are bicycles for sale here', 'I want my money back', 'what are your hours on the weekend'];

async function vectorsOf(texts: string[]): Promise<TextVectors> {
  const vs = await (await encoder()).embed(texts);
  return new Map(texts.map((t, i) => [t, vs[i]!]));
}

describe('encoder evidence', () => {
  it('lists each text of the content once, as the models key it', () => {
    const texts = textsToEmbed({
      intents: [{ name: 'sell_bikes', trainingPhrases: [' do you sell bikes ', 'do you sell bikes'] }],
      articles,
      none: ['are you hiring'],
    });
    expect(texts).toEqual([
      'do you sell bikes',
      'sell bikes',
      'Refunds',
      'We refund the full price within 30 days of purchase.',
      'Delivery',
      'Parcels arrive in two to three working days.',
      'Gift wrapping',
      'Any order can be gift wrapped with a card.',
      'are you hiring',
    ]);
  });

  it('classifies a paraphrase by meaning, and without a message vector as by words alone', async () => {
    const vectors = await vectorsOf([...textsToEmbed({ intents }), ...messages]);
    const withEncoder = trainClassifier(intents, {}, null, [], vectors);
    const words = trainClassifier(intents, {}, null, []);
    expect(withEncoder.model.encoded).toBeDefined();
    expect(withEncoder.classify(messages[0]!, 1, vectors.get(messages[0]!))[0]!.intent).toBe('sell_bikes');
    expect(withEncoder.classify(messages[2]!, 1, vectors.get(messages[2]!))[0]!.intent).toBe('opening_hours');
    // A model trained with vectors still ranks a message that comes without one (the words' share of its weights).
    expect(withEncoder.classify('where is my order', 1)[0]!.intent).toBe('track_order');
    expect(words.classify('where is my order', 1)[0]!.intent).toBe('track_order');
  }, 60_000);

  it('fuses the centroids for a tenant too big for the block, and a message without a vector is unchanged by them', async () => {
    const vectors = await vectorsOf([...textsToEmbed({ intents }), ...messages]);
    const fused = trainClassifier(intents, { encoderMaxWork: 0 }, null, [], vectors);
    expect(fused.model.encoded).toBeUndefined();
    expect(fused.model.centroids).toBeDefined();
    expect(fused.classify(messages[0]!, 1, vectors.get(messages[0]!))[0]!.intent).toBe('sell_bikes');
    const plain = trainClassifier(intents, { encoderMaxWork: 0, encoderFusion: 0 }, null, [], vectors);
    expect(fused.classify('track my parcel', 3)).toEqual(plain.classify('track my parcel', 3));
  }, 60_000);

  it('finds an article by meaning that shares no word with the message, and answers by words where an article has no vectors', async () => {
    const vectors = await vectorsOf([...textsToEmbed({ articles }), messages[1]!]);
    const index = buildKnowledgeIndex(articles, { vectors });
    const hit = index.search(messages[1]!, { vector: vectors.get(messages[1]!) })[0]!;
    expect(hit.articleId).toBe('refunds');
    expect(hit.features.meaning).toBeGreaterThan(0.3);
    expect(buildKnowledgeIndex(articles).search(messages[1]!)[0]?.articleId).not.toBe('refunds');
    // Only the delivery article indexed so far: gift wrapping still answers by its words.
    const partial = new Map(
      [...vectors].filter(([t]) => t.startsWith('Delivery') || t.startsWith('Parcels') || t === messages[1]),
    );
    const wrapped = buildKnowledgeIndex(articles, { vectors: partial }).search('gift wrapped order', {
      vector: vectors.get(messages[1]!),
    });
    expect(wrapped.map((h) => h.articleId)).toContain('gift-wrap');
    expect(wrapped.find((h) => h.articleId === 'gift-wrap')!.features.meaning).toBeUndefined();
  }, 60_000);
});
