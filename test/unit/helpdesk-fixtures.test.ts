import { describe, expect, it } from 'vitest';
import { groupOf, helpDeskProblems, loadHelpDesks } from '../fixtures/helpdesks.ts';

const desks = loadHelpDesks();

describe('help desk fixtures', () => {
  it('there is at least one', () => {
    expect(desks.length).toBeGreaterThan(0);
  });

  it.each(desks)('$slug keeps the fixture rules', ({ desk }) => {
    expect(helpDeskProblems(desk)).toEqual([]);
  });

  it('each business is of another trade', () => {
    const trades = desks.map(({ desk }) => desk.trade);
    expect(new Set(trades).size).toBe(trades.length);
  });

  describe('a broken fixture is caught', () => {
    const copy = () => structuredClone(desks[0]!.desk);

    it('an expected article that does not exist', () => {
      const d = copy();
      const i = d.messages.findIndex((m) => groupOf(m.expect) === 'article');
      d.messages[i]!.expect = { article: 'No such article' };
      expect(helpDeskProblems(d)).toEqual([`message ${i} expects unknown article "No such article"`]);
    });

    it('an expected intent that does not exist, and a duplicate intent', () => {
      const d = copy();
      d.messages[0]!.expect = { intent: 'no_such_intent' };
      d.intents.push(structuredClone(d.intents.at(-1)!));
      const problems = helpDeskProblems(d);
      expect(problems).toContain('message 0 expects unknown intent no_such_intent');
      expect(problems).toContain(`intent ${d.intents.at(-1)!.name} is defined twice`);
    });

    it('held-out messages out of step', () => {
      const d = copy();
      d.messages[0]!.heldOut = true;
      expect(helpDeskProblems(d)).toContain('message 0: heldOut must be false');
    });

    it("too few messages, and a question over the API's 300 characters", () => {
      const d = copy();
      d.messages = d.messages.slice(0, 30);
      d.articles[1]!.questions = ['x'.repeat(301)];
      const problems = helpDeskProblems(d);
      expect(problems.some((p) => p.startsWith('messages:'))).toBe(true);
      expect(problems.some((p) => p.startsWith('articles.1.questions.0:'))).toBe(true);
    });

    it('a human_agent that only replies, and a second currency', () => {
      const d = copy();
      d.intents.find((i) => i.name === 'human_agent')!.action = 'reply';
      d.articles[0]!.body += ' Or 10 € and 10 $ if you prefer.';
      const problems = helpDeskProblems(d);
      expect(problems).toContain('human_agent must escalate');
      expect(problems.some((p) => p.startsWith('more than one currency'))).toBe(true);
    });

    it('an article too short', () => {
      const d = copy();
      d.articles[0]!.body = 'Too short to answer anything.';
      expect(helpDeskProblems(d)).toEqual([`article "${d.articles[0]!.title}" has 5 words (60 to 250)`]);
    });
  });
});
