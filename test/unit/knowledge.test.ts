import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  type ArticleInput,
  buildKnowledgeIndex,
  clampAnswer,
  DEFAULT_KNOWLEDGE_THRESHOLD,
  formatFor,
  markdownToKindedBlocks,
  MAX_ANSWER_CHARS,
  prepareArticle,
  splitSentences,
  type StoredArticle,
  toPassages,
  toUnits,
} from '#shared/nlu/index.ts';

const help: ArticleInput[] = [
  {
    id: 'returns',
    title: 'How do I return an item?',
    url: 'https://help.example.com/returns',
    tags: ['orders'],
    body: [
      '# Returns',
      '',
      'You can return any item within 30 days of delivery. The item must be unused and in its original packaging.',
      '',
      '## Steps',
      '',
      '1. Open **Orders** in your account.',
      '2. Choose the item and click *Return*.',
      '3. Print the prepaid label and drop the parcel at any post office.',
      '',
      'We refund the price to your original payment method within 5 business days of receiving the parcel.',
    ].join('\n'),
  },
  {
    id: 'password',
    title: 'Resetting your password',
    url: 'https://help.example.com/password',
    body: 'Click **Forgot password** on the sign-in page and enter your email address. We send you a link that is valid for one hour. If the email does not arrive, check your spam folder.',
    questions: ['I cannot log in to my account', 'I forgot my login'],
  },
  {
    id: 'payment',
    title: 'Which payment methods do you accept?',
    body: 'We accept Visa, Mastercard, American Express, PayPal and Apple Pay. Bank transfers are not accepted. Your card is charged when the order ships.',
  },
  {
    id: 'tracking',
    title: 'Tracking your parcel',
    body: 'Every shipment gets a tracking number by email once it leaves our warehouse. Open the link in that email to follow the parcel. Deliveries take 2 to 4 business days.',
  },
  {
    id: 'gift',
    title: 'Gift cards',
    body: 'Gift cards can be bought in amounts from 10 to 500 euros. They never expire and can be used for several orders until the balance is spent. Returns of items bought with a gift card are refunded to a new gift card.',
  },
];

const stored = help.map((a) => prepareArticle(a));
const index = buildKnowledgeIndex(stored);
const top = (q: string) => index.search(q)[0];

describe('prepareArticle', () => {
  it('keeps a small JSON-serialisable form: plain text passages, no Markdown', () => {
    const a = prepareArticle(help[0]!);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    expect(Object.keys(a).sort()).toEqual(['format', 'id', 'passages', 'questions', 'tags', 'title', 'url']);
    expect(a.url).toBe('https://help.example.com/returns');
    const text = a.passages.join('\n');
    expect(text).toContain('Open Orders in your account.');
    expect(text).not.toMatch(/[*#]/);
    expect(prepareArticle({ id: 'x', title: '  Spaced\n title ', body: 'Body.' })).toEqual({
      id: 'x',
      title: 'Spaced title',
      url: null,
      tags: [],
      questions: [],
      passages: ['Body.'],
      format: { strong: [], emphasis: [], links: [], listItems: [] },
    });
  });

  it("keeps the body's bold, emphasis, links and list items by their plain text, and an answer gets those it contains", () => {
    const a = prepareArticle({
      id: 'g',
      title: 'Gifts',
      body: 'Tick **This is a gift** at checkout, _free_ of charge. See [our gift page](https://shop.example/gifts) or [this](javascript:alert(1)).\n\n- Wrapping paper\n- A card\n',
    });
    expect(a.format).toEqual({
      strong: ['This is a gift'],
      emphasis: ['free'],
      links: [{ text: 'our gift page', url: 'https://shop.example/gifts' }],
      listItems: ['Wrapping paper', 'A card'],
    });
    expect(formatFor('Tick This is a gift at checkout.\nWrapping paper', a.format)).toEqual({
      strong: ['This is a gift'],
      emphasis: [],
      links: [],
      listItems: ['Wrapping paper'],
    });
    expect(formatFor('Nothing formatted here.', a.format)).toBeNull();
  });

  it('passages are whole sentences, within their size, blocks on their own lines', () => {
    const sentences = Array.from(
      { length: 40 },
      (_, i) => `Sentence number ${i} says something about parcels and returns.`,
    );
    const passages = toPassages([sentences.slice(0, 20).join(' '), sentences.slice(20).join(' ')], 300);
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) {
      expect(p.length).toBeLessThanOrEqual(300);
      for (const line of p.split('\n')) expect(line).toMatch(/^Sentence number \d+ .*\.$/);
    }
    // Every sentence is kept, once, in order.
    expect(passages.join(' ').replace(/\n/g, ' ')).toBe(sentences.join(' '));
  });

  it('a block boundary closes a passage once it is half full', () => {
    expect(toPassages(['Short heading', 'A paragraph under it.'], 400)).toEqual([
      'Short heading\nA paragraph under it.',
    ]);
    const long = `${'x'.repeat(150)}.`;
    expect(toPassages([long, long, 'Next.'], 400)).toEqual([`${long}\n${long}`, 'Next.']);
  });

  it('a passage starts at a coherent unit: a list stays with its lead-in, never starting at its second item', () => {
    const body = [
      'Orders placed before 2 pm leave our warehouse the same day.',
      '',
      '- Standard delivery takes 3 to 5 working days and costs $4.90.',
      '- Express delivery takes 1 to 2 working days and costs $9.90.',
      '- Saturday delivery arrives the next Saturday and costs $14.90. Choose it at checkout.',
      '',
      'We do not deliver on Sundays or public holidays.',
    ].join('\n');
    const { passages } = prepareArticle({ id: 's', title: 'Shipping', body });
    expect(passages).toEqual([
      'Orders placed before 2 pm leave our warehouse the same day.\nStandard delivery takes 3 to 5 working days and costs $4.90.\n' +
        'Express delivery takes 1 to 2 working days and costs $9.90.\nSaturday delivery arrives the next Saturday and costs $14.90. Choose it at checkout.',
      'We do not deliver on Sundays or public holidays.',
    ]);
    const hit = buildKnowledgeIndex([
      prepareArticle({ id: 's', title: 'Shipping times and costs', body, questions: ['do u deliver on saturdays'] }),
    ]).search('do u deliver on sundays')[0];
    expect(hit!.answer).toMatch(/^We do not deliver on Sundays/);
  });

  it('a heading joins what follows it, and a passage never ends at one', () => {
    const body =
      '## Opening hours\n\nWe are open Monday to Friday, 9 to 6.\n\n## Holidays\n\nWe close on public holidays.';
    expect(toUnits(markdownToKindedBlocks(body)).map((u) => u.map((b) => b.text))).toEqual([
      ['Opening hours', 'We are open Monday to Friday, 9 to 6.'],
      ['Holidays', 'We close on public holidays.'],
    ]);
    const filler = `${'Some words about the shop and its long history. '.repeat(3).trim()}`;
    const passages = toPassages(
      markdownToKindedBlocks(`${filler}\n\n## Holidays\n\nWe close on public holidays.`),
      200,
    );
    expect(passages).toEqual([filler, 'Holidays\nWe close on public holidays.']);
    // Less than half full, but the heading and its first sentence would not fit: the heading starts the next.
    const short = 'We are a small shop in town.';
    const next = `${'We close on public holidays and on the first Monday of every month for stocktaking. '.repeat(2).trim()}`;
    expect(toPassages(markdownToKindedBlocks(`${short}\n\n## Holidays\n\n${next}`), 120)).toEqual([
      short,
      'Holidays\nWe close on public holidays and on the first Monday of every month for stocktaking.',
      'We close on public holidays and on the first Monday of every month for stocktaking.',
    ]);
  });

  it('a list too long for one passage goes on under its lead-in again', () => {
    const items = Array.from({ length: 8 }, (_, i) => `- Step ${i + 1} of the return takes a short while to finish.`);
    const body = ['To return an item:', '', ...items].join('\n');
    const passages = toPassages(markdownToKindedBlocks(body), 200);
    expect(passages.length).toBeGreaterThan(1);
    for (const p of passages) {
      expect(p.startsWith('To return an item:\nStep ')).toBe(true);
      expect(p.length).toBeLessThanOrEqual(200);
    }
    // Every item is kept, once, in order.
    expect(passages.flatMap((p) => p.split('\n').slice(1))).toEqual(items.map((i) => i.slice(2)));
  });

  it('a sentence longer than the passage size is cut at word boundaries', () => {
    const run = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const parts = splitSentences(run, 100);
    expect(parts.length).toBeGreaterThan(10);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(100);
    expect(parts.join(' ')).toBe(run);
    const unbroken = 'y'.repeat(1_000);
    expect(splitSentences(unbroken, 600).map((p) => p.length)).toEqual([600, 400]);
  });

  it('passages never exceed the answer limit, whatever size is asked for', () => {
    const body = Array.from({ length: 100 }, (_, i) => `This is sentence ${i} of a long article about returns.`).join(
      ' ',
    );
    for (const p of prepareArticle({ id: 'l', title: 'Long', body }, { passageChars: 5_000 }).passages) {
      expect(p.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    }
  });
});

describe('buildKnowledgeIndex: search', () => {
  it('finds the article that answers, with its answer passage, title and url', () => {
    const hit = top('How can I return an item I bought?');
    expect(hit).toMatchObject({
      articleId: 'returns',
      title: 'How do I return an item?',
      url: 'https://help.example.com/returns',
    });
    expect(hit!.confidence).toBeGreaterThanOrEqual(DEFAULT_KNOWLEDGE_THRESHOLD);
    expect(hit!.confidence).toBeLessThanOrEqual(1);
  });

  it('tells how nearly the message is spelled like the title or a question, typos and all', () => {
    const typo = top('i forgot my loggin');
    expect(typo!.articleId).toBe('password');
    expect(typo!.features.spelling).toBeGreaterThan(0.7);
    expect(typo!.features.spelling).toBeLessThan(1);
    expect(top('I forgot my login')!.features.spelling).toBe(1);
    const unlike = index.search('i forgot my loggin', { limit: 5 }).filter((h) => h.articleId !== 'password');
    for (const h of unlike) expect(h.features.spelling).toBeLessThan(0.5);
  });

  it('the answer is the passage that covers the message, not always the first one', () => {
    const hit = top('when do I get my refund after a return?');
    expect(hit!.articleId).toBe('returns');
    expect(hit!.answer).toContain('We refund the price to your original payment method');
  });

  it('a passage that says all the message asks answers it, even when the title does not', () => {
    const hit = top('can I pay by Visa, Mastercard or PayPal?');
    expect(hit!.articleId).toBe('payment');
    expect(hit!.confidence).toBeGreaterThanOrEqual(DEFAULT_KNOWLEDGE_THRESHOLD);
    const delivery = top('how many business days do deliveries take?');
    expect(delivery!.articleId).toBe('tracking');
    expect(delivery!.answer).toContain('Deliveries take 2 to 4 business days.');
  });

  it('stems words and matches the title above a passing mention in another body', () => {
    expect(top('returning items')!.articleId).toBe('returns');
    expect(top('what payment method can I use')!.articleId).toBe('payment');
    // "gift card" is said by the gift card article's title; returns mention gift cards only in passing.
    expect(top('do gift cards expire?')!.articleId).toBe('gift');
  });

  it("uses the article's questions, tolerates a typo, and joins a split compound", () => {
    expect(top('I forgot my login details')!.articleId).toBe('password');
    expect(top('how do I reset my pasword')!.articleId).toBe('password');
    expect(top('where is my tracking number, it was in an e mail')!.articleId).toBe('tracking');
  });

  it("learns word swaps from the articles' questions and uses them for other articles", () => {
    const kb: ArticleInput[] = [
      {
        id: 'account',
        title: 'Delete your account',
        body: 'Accounts are closed within a day.',
        questions: ['Remove my account'],
      },
      {
        id: 'address',
        title: 'Delete a saved address',
        body: 'Saved addresses are listed in settings.',
        questions: ['Remove an address'],
      },
      { id: 'card', title: 'Delete a payment card', body: 'Open the wallet and choose the card.' },
      { id: 'other', title: 'Change the language', body: 'Pick a language in settings.' },
    ];
    const q = 'how do I remove a payment card?';
    const learned = buildKnowledgeIndex(kb.map((a) => prepareArticle(a))).search(q)[0]!;
    const unlearned = buildKnowledgeIndex(
      kb.map((a) => prepareArticle(a)),
      { weights: { synonymArticles: 99 } },
    ).search(q);
    expect(learned.articleId).toBe('card');
    expect(learned.confidence).toBeGreaterThan(unlearned.find((h) => h.articleId === 'card')!.confidence);
  });

  it("uses a word pair one article's own statements show in that article only", () => {
    const kb: ArticleInput[] = [
      {
        id: 'subscription',
        title: 'Cancel my subscription',
        body: 'Open billing and choose the plan. The plan stays active until the paid period is over.',
        questions: ['End my subscription'],
      },
      { id: 'order', title: 'Cancel an order', body: 'Orders can be cancelled until they ship.' },
    ];
    const build = (weights = {}) =>
      buildKnowledgeIndex(
        kb.map((a) => prepareArticle(a)),
        { weights },
      );
    const features = (weights: object, q: string, id: string) =>
      build(weights)
        .explain(q)
        .find((e) => e.articleId === id)!.features;
    // "end" = "cancel" in the subscription article: its title now covers "end" too...
    const own = 'end the plan of my subscription';
    expect(features({}, own, 'subscription').title).toBeGreaterThan(
      features({ localSynonym: 0 }, own, 'subscription').title,
    );
    expect(build().search(own)[0]!.articleId).toBe('subscription');
    // ...but one article teaches nothing about the others: "end an order" does not match "cancel an order" better.
    expect(features({}, 'end an order', 'order')).toEqual(features({ localSynonym: 0 }, 'end an order', 'order'));
  });

  it('matches stems that differ only in their last letters ("privacy" and "private")', () => {
    const kb: ArticleInput[] = [
      { id: 'private', title: 'Keep your posts private', body: 'Choose who sees each post in its menu.' },
      { id: 'delete', title: 'Delete your posts', body: 'Open the post menu and choose delete.' },
    ];
    const idx = (weights = {}) =>
      buildKnowledgeIndex(
        kb.map((a) => prepareArticle(a)),
        { weights },
      );
    const hit = idx().search('privacy of my posts')[0]!;
    expect(hit.articleId).toBe('private');
    expect(hit.confidence).toBeGreaterThan(
      idx({ variant: 0 })
        .search('privacy of my posts')
        .find((h) => h.articleId === 'private')?.confidence ?? 0,
    );
    // Words that part earlier are different words: "contact" is not "contain".
    const other = buildKnowledgeIndex([
      prepareArticle({ id: 'box', title: 'What the box may contain', body: 'Only dry goods.' }),
    ]);
    expect(other.search('contact')).toEqual([]);
  });

  it('reads a one-letter prefix joined by a hyphen as part of its word ("e-mail" is "email")', () => {
    const kb: ArticleInput[] = [
      { id: 'street', title: 'Change your postal address', body: 'Open the profile page and type the new street.' },
      { id: 'email', title: 'Change your email address', body: 'Open the profile page and type the new address.' },
    ];
    const idx = buildKnowledgeIndex(kb.map((a) => prepareArticle(a)));
    expect(idx.search('how can I change my e-mail address?')[0]!.articleId).toBe('email');
    expect(idx.search('how can I change my É-mail address?')[0]!.articleId).toBe('email');
    // Only a single letter: a hyphen between two words still separates them.
    expect(idx.search('postal-street address')[0]!.articleId).toBe('street');
  });

  it("counts a question's match at a fraction of the title's in the confidence, not in the ranking", () => {
    const asTitle: ArticleInput = {
      id: 'delay',
      title: 'Send an email later',
      body: 'Pick a time under the arrow of the send button.',
    };
    const asQuestion: ArticleInput = { ...asTitle, title: 'Scheduled sending', questions: ['Send an email later'] };
    const other: ArticleInput = {
      id: 'other',
      title: 'Email signatures',
      body: 'Add a signature in the settings of your email.',
    };
    const conf = (a: ArticleInput, weights = {}) => {
      const hits = buildKnowledgeIndex(
        [a, other].map((x) => prepareArticle(x)),
        { weights },
      ).search('send an email later');
      expect(hits[0]!.articleId).toBe('delay');
      return hits[0]!.confidence;
    };
    expect(conf(asQuestion)).toBeLessThan(conf(asTitle));
    expect(conf(asQuestion, { questions: 1 })).toBeGreaterThan(conf(asQuestion));
    // The ranking still takes the question in full: the question's article comes first.
    expect(conf(asQuestion, { questions: 0 })).toBeGreaterThan(0);
  });

  it('orders hits best first, at most 3 by default and at most 10', () => {
    const hits = index.search('return parcel refund gift card order');
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits.length).toBeGreaterThan(1);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.confidence).toBeGreaterThanOrEqual(hits[i]!.confidence);
    expect(index.search('return parcel refund gift card order', { limit: 50 }).length).toBeLessThanOrEqual(10);
    expect(index.search('return', { limit: 0 })).toEqual([]);
    expect(index.search('return', { limit: Number.NaN }).length).toBeLessThanOrEqual(3);
  });

  it('abstains: an off-topic message stays below the default threshold', () => {
    for (const q of [
      'what is the weather like in Paris tomorrow?',
      'tell me a joke about cats',
      'how do I install python on linux',
    ]) {
      const hit = top(q);
      expect(hit?.confidence ?? 0).toBeLessThan(DEFAULT_KNOWLEDGE_THRESHOLD);
    }
    // Sharing a word is not enough: "card" and "expire" alone do not make a gift-card question.
    expect(top('my credit card expired, can I update it on my subscription?')?.confidence ?? 0).toBeLessThan(
      DEFAULT_KNOWLEDGE_THRESHOLD,
    );
  });

  it('messages of only stop words or no words at all find nothing', () => {
    expect(index.search('')).toEqual([]);
    expect(index.search('how do I do this?')).toEqual([]);
    expect(index.search('!!! ??? ...')).toEqual([]);
  });

  it('answers are whole sentences of at most 600 characters', () => {
    const sentence = 'Our warehouse ships parcels every weekday before noon and on Saturdays.';
    const body = Array.from({ length: 30 }, () => sentence).join(' ');
    const idx = buildKnowledgeIndex([prepareArticle({ id: 'w', title: 'Warehouse', body }, { passageChars: 600 })]);
    const hit = idx.search('when does the warehouse ship parcels')[0]!;
    expect(hit.answer.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(hit.answer.startsWith(sentence)).toBe(true);
    expect(hit.answer.endsWith('Saturdays.')).toBe(true);
  });

  it('a stored passage longer than the limit (an older stored form) is cut to whole sentences', () => {
    const long = Array.from({ length: 20 }, (_, i) => `Sentence ${i} is about delivery times.`).join(' ');
    const idx = buildKnowledgeIndex([
      { id: 'o', title: 'Delivery', url: null, tags: [], questions: [], passages: [long] },
    ]);
    const answer = idx.search('delivery times')[0]!.answer;
    expect(answer.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(answer).toMatch(/^Sentence 0 .*\.$/);
    expect(long.startsWith(answer)).toBe(true);
    expect(clampAnswer('z'.repeat(2_000)).length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(clampAnswer('Short.')).toBe('Short.');
  });

  it('scores do not depend on where an article sits in the list', () => {
    const reversed = buildKnowledgeIndex([...stored].reverse());
    for (const q of ['return an item', 'payment methods', 'forgot password']) {
      expect(reversed.search(q).map((h) => [h.articleId, h.confidence])).toEqual(
        index.search(q).map((h) => [h.articleId, h.confidence]),
      );
    }
  });
});

describe('buildKnowledgeIndex: hostile input', () => {
  it('an empty knowledge base and empty articles answer nothing', () => {
    expect(buildKnowledgeIndex([]).search('return an item')).toEqual([]);
    const empty: StoredArticle = { id: 'e', title: '', url: null, tags: [], questions: [], passages: [] };
    expect(buildKnowledgeIndex([empty]).search('anything at all')).toEqual([]);
  });

  it('huge messages, regex metacharacters and odd Unicode never throw', () => {
    const queries = [
      'return '.repeat(200_000),
      'x'.repeat(1_000_000),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: regex metacharacters as a customer might type them
      '.*+?^${}()|[]\\/ (a+)+$ [^a] \\d{1,1000000}',
      'ret(u)rn [an] it.em?*',
      '\u0000\u0001\uFFFF\uD800 \u202E return',
      'Ŕéţúŕñ àñ ïţéḿ 返品 返回 🙂🙂',
      '\n\t\r  ',
    ];
    for (const q of queries) {
      const hits = index.search(q);
      for (const h of hits) {
        expect(h.confidence).toBeGreaterThanOrEqual(0);
        expect(h.confidence).toBeLessThanOrEqual(1);
      }
    }
    expect(top('ret(u)rn [an] it.em?*')?.articleId).toBe('returns');
    expect(top('Ŕéţúŕñ àñ ïţéḿ')?.articleId).toBe('returns');
  });

  it('articles with hostile text build and search', () => {
    const odd: StoredArticle[] = [
      {
        id: 'a',
        title: '(.*)+'.repeat(1_000),
        url: null,
        tags: ['[x]'],
        questions: ['$$$'],
        passages: ['\\'.repeat(10_000), 'a'.repeat(100_000)],
      },
      {
        id: 'b',
        title: 'Normal title about refunds',
        url: null,
        tags: [],
        questions: [],
        passages: ['Refunds take five days.'],
      },
    ];
    const idx = buildKnowledgeIndex(odd);
    expect(idx.size).toBe(2);
    expect(idx.search('refunds')[0]!.articleId).toBe('b');
    expect(() => idx.search('(.*)+')).not.toThrow();
  });
});

describe('the chat-path module', () => {
  it("bundles no Markdown or HTML parser and not the sentence encoder's runtime: only the stemmer comes with it", async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL('../../shared/nlu/knowledge/retrieval.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      metafile: true,
      logLevel: 'silent',
    });
    const packages = Object.keys(out.metafile.inputs)
      .filter((path) => path.includes('node_modules/'))
      .map((path) => path.split('node_modules/')[1]!.split('/')[0]!);
    expect([...new Set(packages)]).toEqual(['stemmer']);
    expect(
      Object.keys(out.metafile.inputs)
        .filter((path) => path.startsWith('shared/'))
        .sort(),
    ).toEqual(
      [
        'knowledge/retrieval',
        'knowledge/evidence',
        'knowledge/lexicon',
        'knowledge/passages',
        'knowledge/query',
        'knowledge/rank',
        'knowledge/scoring',
        'knowledge/semantic',
        'knowledge/synonyms',
        'knowledge/terms',
        'knowledge/words',
        'knowledge/phrase-spelling',
        'encoder/glove',
        'knowledge/article-meaning',
        'encoder/vector-math',
      ]
        .map((m) => `shared/nlu/${m}.ts`)
        .sort(),
    );
  });
});
