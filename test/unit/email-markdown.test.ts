import { describe, expect, it } from 'vitest';
import { htmlOf } from '#shared/domain/email/outbound.ts';

// An agent's reply as the HTML part of its email: Markdown rendered, and only http, https and
// mailto links kept; any other link is its words alone.

describe("a reply's Markdown as email HTML", () => {
  it('keeps http, https and mailto links', () => {
    const html = htmlOf(
      'See [the guide](https://shop.example/guide), [old](http://shop.example) or [write](mailto:help@shop.example).',
    );
    expect(html).toContain('<a href="https://shop.example/guide">the guide</a>');
    expect(html).toContain('<a href="http://shop.example">old</a>');
    expect(html).toContain('<a href="mailto:help@shop.example">write</a>');
  });

  it('drops javascript:, data:, vbscript: and relative links, inline or by reference, and such images, keeping the words', () => {
    const html = htmlOf(
      '[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c]( javascript:y) [d](data:text/html,x) [e][1] [f](/relative) ![pic](javascript:z)\n\n[1]: vbscript:z',
    );
    expect(html).not.toMatch(/javascript|vbscript|data:|href="\/relative"|<img/i);
    expect(html).toContain('a b c d e f pic');
  });
});
