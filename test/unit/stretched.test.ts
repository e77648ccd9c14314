import { describe, expect, it } from 'vitest';
import type { Intent } from '#shared/data/intents.ts';
import { trainModel } from '#shared/domain/assistant/assistant.ts';
import { answer, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD, unstretch } from '#shared/nlu/index.ts';

const english = new Set([
  'bye',
  'hi',
  'good',
  'morning',
  'thanks',
  'please',
  'help',
  'see',
  'too',
  'so',
  'slow',
  'all',
]);
const known = (w: string) => english.has(w);

describe('stretched words', () => {
  it('reads a stretched word as the known word it stretches', () => {
    expect(unstretch('byee', known)).toBe('bye');
    expect(unstretch('hiii!', known)).toBe('hi!');
    expect(unstretch('Goood morning', known)).toBe('good morning');
    expect(unstretch('thankss, pleasee help', known)).toBe('thanks, please help');
    expect(unstretch('sooooo slow', known)).toBe('so slow');
  });

  it('leaves known words, and words that shorten to nothing known, as they are', () => {
    expect(unstretch('see you too', known)).toBe('see you too');
    expect(unstretch('my facebook messaes', known)).toBe('my facebook messaes');
    // A product the tenant's articles name keeps its letters.
    expect(unstretch('is the Fitt waterproof', (w) => known(w) || w === 'fitt')).toBe('is the Fitt waterproof');
  });

  it('a goodbye written "byee" reaches the goodbye intent', () => {
    const intent = (name: string, trainingPhrases: string[]): Intent => ({
      id: name,
      name,
      description: '',
      trainingPhrases,
      response: name,
      entities: [],
      action: 'reply',
      enabled: true,
      createdAt: '',
      updatedAt: '',
    });
    const model = trainModel(1, [
      intent('opening_hours', [
        'when are you open',
        'what time do you close',
        'are you open on sunday',
        'opening hours',
        'are you open today',
        'what are your hours',
      ]),
      intent('sign_off', ['bye', 'goodbye', 'see you', 'that is all, thanks', 'have a nice evening', 'cheers, bye']),
    ]);
    const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
    for (const text of ['byee', 'byeeee'])
      expect(answer(model, null, text, th, 'FALLBACK').nlu.intent?.name, text).toBe('sign_off');
  });
});
