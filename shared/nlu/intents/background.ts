// Generic messages that belong to no support intent. Trained as a hidden class, they give the
// softmax somewhere to put its mass when a message resembles none of the tenant's intents
// (without it a tenant with one intent would answer everything with confidence 1).
import { stem, tokenize } from './features.ts';
import { STOP } from '../knowledge/words.ts';

export const BACKGROUND_LABEL = '__background__';

export const BACKGROUND_PHRASES: string[] = [
  'what is the capital of france',
  'who won the football game last night',
  'tell me a joke',
  'what is the meaning of life',
  'how tall is mount everest',
  'what is the weather like today',
  'will it rain tomorrow',
  'who is the president of the united states',
  'what is 2 plus 2',
  'can you solve this math problem',
  'write me a poem about the sea',
  'sing me a song',
  'what is your favorite color',
  'do you like pizza',
  'how old are you',
  'are you a robot',
  'what does the fox say',
  'translate this sentence into spanish',
  'how do i cook pasta',
  'give me a recipe for chocolate cake',
  'what time is it in tokyo',
  'how far is the moon from the earth',
  'who wrote romeo and juliet',
  'recommend a good movie to watch',
  'what should i watch on netflix tonight',
  'play some music',
  'set an alarm for 7 am',
  'remind me to call my mom',
  'what is the population of china',
  'how many legs does a spider have',
  'explain quantum physics',
  'what is the speed of light',
  'who painted the mona lisa',
  'how do airplanes fly',
  'what is the best programming language',
  'how do i learn to play guitar',
  'what are the symptoms of the flu',
  'how many calories are in an apple',
  'what is the stock price of apple',
  'who is the richest person in the world',
  'what is the tallest building on earth',
  'how do you say hello in japanese',
  'what is the square root of 144',
  'how do i fix my bike chain',
  'where can i go hiking near me',
  'what is the best pizza place in new york',
  'how do i train my dog to sit',
  'why is the sky blue',
  'what happened in world war two',
  'tell me something interesting',
  'i am bored',
  'do you believe in aliens',
  'what is love',
  'can you dance',
  'flip a coin',
  'roll a dice',
  'what is the chemical formula of water',
  'how many planets are in the solar system',
  'what is the longest river in the world',
  'who discovered penicillin',
  'banana apple orange grape',
  'asdf qwerty',
  'lorem ipsum dolor sit amet',
  'the quick brown fox jumps over the lazy dog',
  'my cat is sleeping on the sofa',
  'i like turtles',
  'what year did the titanic sink',
  'how do i make a paper airplane',
  'what is the best way to lose weight',
  'book me a table at a restaurant',
  'call a taxi for me',
  'how is the traffic on the highway',
  'who will win the election',
  'what is bitcoin',
  'how do vaccines work',
  'what is the plot of harry potter',
];

const contentOf = (text: string) =>
  new Set(
    tokenize(text)
      .filter((w) => !STOP.has(w))
      .map(stem),
  );

// The background phrases' content words, and for each word the phrases that have it: made once per
// container, on the first training.
let index: { content: Array<Set<string>>; byWord: Map<string, number[]> } | undefined;
function backgroundIndex() {
  if (index) return index;
  const content = BACKGROUND_PHRASES.map(contentOf);
  const byWord = new Map<string, number[]>();
  content.forEach((ws, k) => {
    for (const w of ws) {
      const ks = byWord.get(w);
      if (ks) ks.push(k);
      else byWord.set(w, [k]);
    }
  });
  index = { content, byWord };
  return index;
}

/**
 * The background phrases less those that one of the tenant's phrases says: a phrase whose content
 * words (stop words aside, stemmed) are all in one tenant phrase, or two or more and at least half
 * of them are, would fight the tenant's own intent ("book me a table at a restaurant" beside a
 * pizzeria's "can i book a table"; CLINC150's `weather` beside "will it rain tomorrow").
 */
export function backgroundFor(phrases: readonly string[]): string[] {
  const { content, byWord } = backgroundIndex();
  const drop = new Set<number>();
  for (const p of phrases) {
    const shared = new Map<number, number>();
    for (const w of contentOf(p)) for (const k of byWord.get(w) ?? []) shared.set(k, (shared.get(k) ?? 0) + 1);
    for (const [k, n] of shared) if (n === content[k]!.size || (n >= 2 && 2 * n >= content[k]!.size)) drop.add(k);
  }
  return BACKGROUND_PHRASES.filter((_, k) => !drop.has(k));
}
