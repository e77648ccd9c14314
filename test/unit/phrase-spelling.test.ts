import { describe, expect, it } from 'vitest';
import { phraseSpelling } from '#shared/nlu/index.ts';

const spelling = phraseSpelling(
  new Map([
    ['goodbye', ['bye', 'thanks, that is all', 'see you later']],
    ['human_agent', ['talk to a person', 'get me an agent']],
  ]),
);

describe('phrase spelling', () => {
  it('is 1 for a phrase itself, whatever its case and punctuation', () => {
    expect(spelling.nearest('Get me an agent!', 'human_agent')).toBe(1);
  });

  it('finds informal spelling and typos where no word is shared', () => {
    const typo = spelling.nearest('get me an agnet', 'human_agent');
    expect(typo).toBeGreaterThan(0.6);
    expect(typo).toBeLessThan(1);
    expect(spelling.nearest('byee', 'goodbye')).toBeGreaterThan(spelling.nearest('byee', 'human_agent'));
    expect(spelling.nearest('thx thats all', 'goodbye')).toBeGreaterThan(0.4);
    expect(spelling.nearest('thx thats all', 'human_agent')).toBeLessThan(0.2);
  });

  it('is 0 for an unknown intent or a message with no letters in common', () => {
    expect(spelling.nearest('bye', 'refund')).toBe(0);
    expect(spelling.nearest('???', 'goodbye')).toBe(0);
  });
});
