import { describe, expect, it } from 'vitest';
import { fillReply, firstNameOf, namesAgent, slashToken } from '../../web/dashboard/src/screens/reply-text.ts';

// The saved-reply picker's text rules (docs/API.md, Saved replies and labels).

describe('fillReply', () => {
  const all = { 'visitor.name': 'Ada', 'agent.name': 'Sam', 'ticket.number': '42' } as const;

  it('fills every placeholder, as often as it appears', () => {
    expect(
      fillReply('Hi {{visitor.name}}, {{agent.name}} here about #{{ticket.number}}. Bye {{visitor.name}}!', all),
    ).toBe('Hi Ada, Sam here about #42. Bye Ada!');
  });

  it('leaves out what the conversation does not have, with the space before its punctuation', () => {
    expect(fillReply('Hi {{visitor.name}}, thanks!', {})).toBe('Hi, thanks!');
    expect(fillReply('Thanks {{visitor.name}}.', {})).toBe('Thanks.');
    expect(fillReply('Dear {{visitor.name}} and team', {})).toBe('Dear and team');
    expect(fillReply('{{visitor.name}}', { 'visitor.name': '' })).toBe('');
  });

  it("fills {{visitor.firstName}} with the name's first word", () => {
    const first = firstNameOf('  Carl   Mendes ');
    expect(first).toBe('Carl');
    expect(
      fillReply('Hi {{visitor.firstName}}, {{agent.name}} here.', {
        'visitor.firstName': first,
        'agent.name': 'Jordan P.',
      }),
    ).toBe('Hi Carl, Jordan P. here.');
    expect(fillReply('Hi {{visitor.firstName}}, thanks!', { 'visitor.firstName': firstNameOf(null) })).toBe(
      'Hi, thanks!',
    );
    expect(namesAgent('{{agent.name}} here')).toBe(true);
    expect(namesAgent('Hi {{visitor.firstName}}')).toBe(false);
  });

  it('keeps the rest of the text as written, other braces included', () => {
    expect(fillReply('Bonjour ! {{unknown}} {x}', all)).toBe('Bonjour ! {{unknown}} {x}');
  });
});

describe('slashToken', () => {
  it('finds a slash at the start of the text or of a word, up to the caret', () => {
    expect(slashToken('/ref', 4)).toEqual({ start: 0, query: 'ref' });
    expect(slashToken('Hello /re', 9)).toEqual({ start: 6, query: 're' });
    expect(slashToken('/', 1)).toEqual({ start: 0, query: '' });
    expect(slashToken('line one\n/thanks', 16)).toEqual({ start: 9, query: 'thanks' });
    // A title with spaces narrows too.
    expect(slashToken('/refund on', 10)).toEqual({ start: 0, query: 'refund on' });
  });

  it('ignores slashes inside words, URLs and dates, and what is after the caret', () => {
    expect(slashToken('and/or', 6)).toBeNull();
    expect(slashToken('see https://x.example/a', 23)).toBeNull();
    expect(slashToken('24/11/2026', 10)).toBeNull();
    expect(slashToken('/ref and more', 2)).toEqual({ start: 0, query: 'r' });
  });
});
