import { describe, expect, it } from 'vitest';
import {
  htmlToBlocks,
  MarkdownError,
  markdownToBlocks,
  markdownToText,
  MAX_MARKDOWN_CHARS,
} from '#shared/nlu/index.ts';

describe('markdownToBlocks', () => {
  it('headings, paragraphs and list items are blocks of their own; soft line breaks join', () => {
    const md =
      '# Refunds\n\nWe refund within\n14 days.\n\n## Steps\n\n- Open *Orders*\n- Pick the order\n  1. Click **Refund**\n';
    expect(markdownToBlocks(md)).toEqual([
      'Refunds',
      'We refund within 14 days.',
      'Steps',
      'Open Orders',
      'Pick the order',
      'Click Refund',
    ]);
  });

  it('links keep their text, images are dropped, inline code is kept', () => {
    const md =
      'See [the help centre](https://help.example.com "Help") ![logo](https://x.test/logo.png) or run `npm ci`.';
    expect(markdownToText(md)).toBe('See the help centre or run npm ci.');
  });

  it('code blocks are kept as text, one line a block', () => {
    const md = 'Run:\n\n```sh\ncurl -X POST https://api.example.com\n\necho done\n```\n';
    expect(markdownToBlocks(md)).toEqual(['Run:', 'curl -X POST https://api.example.com', 'echo done']);
  });

  it('hard line breaks and block quotes end a block', () => {
    expect(markdownToBlocks('first line  \nsecond line\n\n> quoted\n> text')).toEqual([
      'first line',
      'second line',
      'quoted text',
    ]);
  });

  it('tables become one block a row, cells separated by commas', () => {
    expect(markdownToBlocks('| Plan | Price |\n|---|---|\n| Basic | 5 € |\n| Pro | 9 € |')).toEqual([
      'Plan, Price',
      'Basic, 5 €',
      'Pro, 9 €',
    ]);
  });

  it('entities and escapes are decoded', () => {
    expect(markdownToText('Tom &amp; Jerry &copy; 2025 \\*not emphasis\\* &#x41;')).toBe(
      'Tom & Jerry © 2025 *not emphasis* A',
    );
  });

  it('HTML in Markdown is reduced to its text; scripts, styles and handlers never survive', () => {
    const md = [
      'Hello <b>there</b> <img src=x onerror="alert(1)"> friend.',
      '',
      '<div class="note"><p>Block one</p><p>Block two</p><script>alert("x")</script><style>p{color:red}</style></div>',
      '',
      'After <!-- a comment --> the <iframe src="https://evil.test">frame text</iframe> end.',
    ].join('\n');
    const text = markdownToText(md);
    expect(markdownToBlocks(md)).toEqual(['Hello there friend.', 'Block one', 'Block two', 'After the end.']);
    for (const bad of ['<', 'alert', 'onerror', 'color:red', 'comment', 'frame text']) expect(text).not.toContain(bad);
  });

  it('text that only looks like HTML inside code stays as plain text', () => {
    expect(markdownToText('Type `<br>` to break a line.')).toBe('Type <br> to break a line.');
  });

  it('empty and whitespace-only input gives no blocks', () => {
    expect(markdownToBlocks('')).toEqual([]);
    expect(markdownToBlocks('   \n\n\t')).toEqual([]);
  });

  it('hostile input within the size limit: long runs of markup characters, deep but readable nesting', () => {
    const inputs = [
      `${'>'.repeat(1_000)} deep`,
      '*'.repeat(20_000),
      `${'['.repeat(10_000)}x${']'.repeat(10_000)}`,
      `${'<div>'.repeat(3_000)}inside`,
      'word '.repeat(4_000),
      '`'.repeat(20_000),
      '\\'.repeat(20_000),
      '![x]('.repeat(4_000),
      '<'.repeat(20_000),
      Array.from({ length: 140 }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n'),
    ];
    for (const md of inputs) {
      const blocks = markdownToBlocks(md);
      for (const b of blocks) expect(b).toBe(b.trim());
    }
    expect(markdownToText(`${'<div>'.repeat(3_000)}inside`)).toBe('inside');
    expect(markdownToText(`${'>'.repeat(1_000)} deep`)).toBe('deep');
  });

  it('nesting too deep for the parser, or a body past the guard, is a MarkdownError (a 400), never a crash', () => {
    expect(() => markdownToBlocks(`${'>'.repeat(5_000)} deep`)).toThrow(MarkdownError);
    expect(() => markdownToBlocks(`${'- '.repeat(5_000)}item`)).toThrow(MarkdownError);
    expect(() => markdownToBlocks('x'.repeat(MAX_MARKDOWN_CHARS + 1))).toThrow(MarkdownError);
  });
});

describe('htmlToBlocks', () => {
  it('reads block elements as block boundaries and ignores unclosed hidden elements to the end', () => {
    expect(htmlToBlocks('<ul><li>one</li><li>two</li></ul><p>three<br>four</p>')).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    expect(htmlToBlocks('visible<script>never')).toEqual(['visible']);
  });
});
