import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Intent } from '#shared/data/intents.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import {
  buildKnowledgeIndex,
  MESSAGE_READ_CHARS,
  messageToRead,
  prepareArticle,
  type StoredArticle,
} from '#shared/nlu/index.ts';
import { demoArticles } from '../../local/demo/articles.ts';
import { hostileCorpus } from '../bench/hostile/corpus.ts';

// The adversarial messages of `npm run bench:hostile` through the chat path's decision (decide: the
// tenant's model and knowledge index, the answer policy, the none examples, the entities), with the
// starter intents and the demo help centre, the data layer and the sentence encoder stood in for.
// The work is asserted by what is read and by counts, not by wall-clock time.

const calls = vi.hoisted(() => ({ typo: 0, embedded: [] as string[] }));

vi.mock('#shared/nlu/knowledge/words.ts', async (original) => {
  const actual = await original<{ withinOneEdit(a: string, b: string): boolean }>();
  return {
    ...actual,
    withinOneEdit: (a: string, b: string) => {
      calls.typo++;
      return actual.withinOneEdit(a, b);
    },
  };
});
const starters = () =>
  starterIntents.map((s, k): Intent & { hitCount: number } => ({
    ...s,
    id: `int_${k}`,
    enabled: true,
    createdAt: '',
    updatedAt: '',
    hitCount: 0,
  }));
vi.mock('#shared/data/intents.ts', async (original) => ({
  ...(await original<object>()),
  // A new tenant's starter intents, already reviewed (the starter review reads listReviewed).
  intentsRepo: { list: async () => starters(), listReviewed: async () => ({ intents: starters(), reviewed: true }) },
}));
vi.mock('#shared/data/examples.ts', async (original) => ({
  ...(await original<object>()),
  examplesRepo: { noneMessages: async () => ['is this a real person', 'asdf'] },
}));
vi.mock('#shared/domain/vectors.ts', async (original) => ({
  ...(await original<object>()),
  storedVectorsOf: async () => new Map(),
  textVectors: () => undefined,
  messageVector: async (_tenant: unknown, text: string) => {
    calls.embedded.push(text);
    return undefined;
  },
}));
vi.mock('#shared/domain/knowledge/knowledge.ts', async (original) => {
  const index = buildKnowledgeIndex(
    JSON.parse(JSON.stringify(demoArticles.map((a, k) => prepareArticle({ ...a, id: `art_${k}` })))) as StoredArticle[],
  );
  return { ...(await original<object>()), knowledgeIndexOf: async () => index };
});

const { decide } = await import('#shared/domain/assistant/assistant.ts');

const tenant = {
  id: 't1',
  name: 'Shop',
  config: {},
  intentsVersion: 1,
  intentCount: starterIntents.length,
  createdAt: '',
  updatedAt: '',
} as Tenant;
const corpus = hostileCorpus();
const codePoints = (s: string) => [...s].length;

/** The typo comparisons and CPU time of deciding one message. */
async function cost(message: string) {
  calls.typo = 0;
  calls.embedded = [];
  const cpu = process.cpuUsage();
  const d = await decide(tenant, message);
  const used = process.cpuUsage(cpu);
  return { typo: calls.typo, cpuMs: (used.user + used.system) / 1000, embedded: calls.embedded, decision: d };
}

beforeAll(async () => {
  process.env.TABLE_NAME ??= 'unit';
  await decide(tenant, 'hello'); // the model and the index, built once
});

describe('what the assistant reads of a message', () => {
  it('is normalised, then cut to MESSAGE_READ_CHARS, so an expanding character reads no more than any other', () => {
    const read = messageToRead('\uFDFA'.repeat(2000));
    expect(codePoints(read)).toBeLessThanOrEqual(MESSAGE_READ_CHARS);
    expect(read).toBe(read.normalize('NFKC'));
    expect(read.startsWith('صلى الله عليه وسلم')).toBe(true);
    expect(messageToRead('ｗｈｅｒｅ ｉｓ ｍｙ ｏｒｄｅｒ ？')).toBe('where is my order ?');
    for (const m of corpus) expect(codePoints(messageToRead(m.text)), m.name).toBeLessThanOrEqual(MESSAGE_READ_CHARS);
  });

  it('leaves an ordinary message as it is, and drops a word the bound cuts', () => {
    expect(messageToRead('Where is my order #4411?')).toBe('Where is my order #4411?');
    const long = `${'word '.repeat(99)}refunded`; // 495 + 8 characters
    expect(messageToRead(long)).toBe('word '.repeat(99).trimEnd());
    expect(messageToRead('x'.repeat(600))).toBe('x'.repeat(MESSAGE_READ_CHARS));
  });

  it('is what the sentence encoder is given and what the words are read from', async () => {
    const { embedded, decision } = await cost(`where is my order #4411 ${'\uFDFA'.repeat(1000)}`);
    expect(embedded).toHaveLength(1);
    expect(codePoints(embedded[0]!)).toBeLessThanOrEqual(MESSAGE_READ_CHARS);
    expect(embedded[0]).toMatch(/^where is my order #4411 صلى الله/);
    expect(decision.nlu.intent?.name).toBe('order_status');
    expect(decision.nlu.entities).toEqual({ order_id: '4411' });
  });
});

describe('an adversarial message', () => {
  it('searches the vocabulary for at most as many typos as a query has terms', async () => {
    // One unknown word of 7 letters: one search of each index's 6- to 8-letter terms.
    const one = (await cost('zqxvbnm')).typo;
    expect(one).toBeGreaterThan(0);
    // The same word repeated is searched once; 70 different ones at most 32 times (the query's terms).
    expect((await cost('zqxvbnm '.repeat(250))).typo).toBe(one);
    const many = Array.from(
      { length: 250 },
      (_, k) => `zq${String.fromCharCode(97 + (k % 26), 97 + Math.floor(k / 26))}vbm`,
    ).join(' ');
    expect((await cost(many)).typo).toBeLessThanOrEqual(32 * one * 1.5);
  });

  it.each(corpus.map((m) => [m.name, m.text] as const))(
    '%s: decided within 10 times the budget of CPU, reading a bounded text',
    async (_name, text) => {
      const c = await cost(text);
      expect(codePoints(c.embedded[0] ?? '')).toBeLessThanOrEqual(MESSAGE_READ_CHARS);
      // The budget is 100 ms (ARCHITECTURE "Performance budget", measured by npm run bench:hostile).
      expect(c.cpuMs).toBeLessThan(1000);
    },
  );
});
