// The adversarial chat messages of `npm run bench:hostile` and test/unit/hostile-messages.test.ts:
// each one valid for POST /chat/message (1 to 2,000 characters, counted in code points), each built
// to make one step of the assistant's reading work hard. Deterministic: the same messages every run.
import { rng } from '#shared/nlu/index.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { demoArticles } from '../../../local/demo/articles.ts';

export interface HostileMessage {
  name: string;
  kind: string;
  text: string;
}

/** The API's bound on a chat message, in code points. */
export const MESSAGE_CHARS = 2_000;

const first = (s: string, n = MESSAGE_CHARS) => [...s].slice(0, n).join('').trim();

/** Words the assistant knows: the starter intents' phrases and the demo help centre. */
const known = [
  ...new Set(
    [...starterIntents.flatMap((i) => i.trainingPhrases), ...demoArticles.flatMap((a) => [a.title, a.body])]
      .join(' ')
      .toLowerCase()
      .match(/[a-z]{2,}/g) ?? [],
  ),
];

export function hostileCorpus(seed = 42): HostileMessage[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  const word = (n: number) => Array.from({ length: n }, () => pick(letters)).join('');
  const words = (make: () => string) => first(Array.from({ length: MESSAGE_CHARS }, make).join(' '));
  // One typo in a known word: the spelling readers search the vocabulary for it.
  const typo = (w: string) => {
    const i = Math.floor(rand() * w.length);
    return w.slice(0, i) + pick(letters) + w.slice(i + 1);
  };
  const scripts = ['abcxyz', 'абвгдж', 'αβγδεζ', '中文字词语句', 'ابتثجح', 'कखगघचछ', '한국어문장', 'ñçøåßé', 'İıŞğ'];
  const messages: HostileMessage[] = [
    // NFKC/NFKD make up to 18 characters of one (U+FDFA), and lower-casing two of one (U+0130).
    { name: 'U+FDFA x 2000', kind: 'expanding', text: '\uFDFA'.repeat(MESSAGE_CHARS) },
    { name: 'U+FDFA and spaces', kind: 'expanding', text: first('\uFDFA '.repeat(MESSAGE_CHARS)) },
    {
      name: 'ligatures and squared words',
      kind: 'expanding',
      text: first('\uFDFB\u3300\u337B\uFB03\u2474\u33CB\u1F71'.repeat(300)),
    },
    { name: 'dotted capital I x 2000', kind: 'expanding', text: '\u0130'.repeat(MESSAGE_CHARS) },
    { name: 'one 2000-letter word', kind: 'long unique words', text: word(MESSAGE_CHARS) },
    { name: '40-letter unique words', kind: 'long unique words', text: words(() => word(40)) },
    {
      name: 'unique 5 to 12 letter words',
      kind: 'long unique words',
      text: words(() => word(5 + Math.floor(rand() * 8))),
    },
    {
      name: 'known words with a typo each',
      kind: 'long unique words',
      text: words(() => typo(pick(known.filter((w) => w.length >= 5)))),
    },
    { name: 'a known word x 285', kind: 'repeated tokens', text: first('refund '.repeat(MESSAGE_CHARS)) },
    { name: 'an unknown word x 285', kind: 'repeated tokens', text: first('zqxvbnm '.repeat(MESSAGE_CHARS)) },
    { name: 'one letter x 2000', kind: 'repeated tokens', text: 'e'.repeat(MESSAGE_CHARS) },
    { name: 'a stretched word x 200', kind: 'repeated tokens', text: first('hiiiiiiii '.repeat(MESSAGE_CHARS)) },
    {
      name: 'contractions and hyphens',
      kind: 'repeated tokens',
      text: first("didn't e-mail x-ray can't ".repeat(MESSAGE_CHARS)),
    },
    { name: 'punctuation only', kind: 'repeated tokens', text: first('?!.,-#@'.repeat(MESSAGE_CHARS)) },
    {
      name: 'a lexicon phrase x 150',
      kind: 'repeated tokens',
      text: first('send it back gift card '.repeat(MESSAGE_CHARS)),
    },
    {
      name: 'entity-like tokens',
      kind: 'repeated tokens',
      text: first(
        'order #A12345 on 14th of March 2025 call +44 20 7946 0958 ada@example.com www.example.com/x 1,234.50 '.repeat(
          40,
        ),
      ),
    },
    { name: 'digits x 2000', kind: 'repeated tokens', text: '7'.repeat(MESSAGE_CHARS) },
    {
      name: 'mixed-script words',
      kind: 'mixed scripts',
      text: words(() => Array.from({ length: 6 }, () => pick([...pick(scripts)])).join('')),
    },
    {
      name: 'mixed scripts, no spaces',
      kind: 'mixed scripts',
      text: first(Array.from({ length: MESSAGE_CHARS }, () => pick([...pick(scripts)])).join('')),
    },
    {
      name: 'combining marks',
      kind: 'mixed scripts',
      text: first('a\u0301\u0302\u0303\u0304\u0305 '.repeat(MESSAGE_CHARS)),
    },
    {
      name: 'emoji with skin tones and joiners',
      kind: 'emoji',
      text: first('👍🏽👨‍👩‍👧‍👦🏳️‍🌈🇫🇷😀'.repeat(MESSAGE_CHARS)),
    },
    {
      name: 'emoji between words',
      kind: 'emoji',
      text: words(() => `${pick(known)}${pick(['😀', '🙏🏿', '🔥', '✨'])}`),
    },
    ...[1, 2, 3].map((k) => ({
      name: `2000 characters of known words #${k}`,
      kind: 'unique 2000-character',
      text: words(() => pick(known)),
    })),
    ...[1, 2, 3].map((k) => ({
      name: `2000 random characters #${k}`,
      kind: 'unique 2000-character',
      text: first(Array.from({ length: MESSAGE_CHARS }, () => pick([...letters, ...'     '])).join('')),
    })),
  ];
  return messages;
}
