import { Parser } from 'htmlparser2';
import { BLOCK, CELL, HIDDEN } from '#shared/core/html-elements.ts';

// An HTML mail's text, as a reader sees it, in time linear in the HTML read: htmlparser2's
// tokenizer streams, the text goes out as pieces joined once, and reading stops once enough text
// is out. mailparser's converter (html-to-text) lays tables out column by column and took seconds
// for a 30,000-row table; htmlparser2 itself keeps its open elements in an array it shifts, so
// the elements open at once are capped too (their cost per tag grows with them).

/** Deeper than any mail program nests; past it the rest of the HTML is not read. */
export const MAX_DEPTH = 200;
const LINK = /^(https?|mailto):/i;
/** Space, tab, CR, LF, no-break space. */
const WHITE = new Set([32, 9, 13, 10, 160]);

export interface HtmlText {
  text: string;
  /** Whether reading stopped before the end (enough text, or nested too deep). */
  cut: boolean;
  /** How many characters of the HTML were read: the work done, whatever the HTML's length. */
  read: number;
}

export function htmlToText(html: string, maxChars: number): HtmlText {
  const pieces: string[] = [];
  let length = 0;
  let newlines = 2; // trailing line breaks of the text so far (the start counts as a paragraph's)
  let spaced = true; // the text so far ends in white space
  let hidden = 0;
  let pre = 0;
  let depth = 0;
  let cells = 0;
  let cut = false;
  let link: { href: string; text: string } | null = null;

  const put = (s: string) => {
    if (!s) return;
    pieces.push(s);
    length += s.length;
    let trailing = 0;
    while (trailing < s.length && s.charCodeAt(s.length - 1 - trailing) === 10) trailing++;
    newlines = trailing === s.length ? newlines + trailing : trailing;
    spaced = trailing > 0 || WHITE.has(s.charCodeAt(s.length - 1));
    if (length >= maxChars && !cut) {
      cut = true;
      parser.pause();
    }
  };
  const lineBreak = (n: number) => {
    if (newlines < n) put('\n'.repeat(n - newlines));
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (++depth > MAX_DEPTH && !cut) {
          cut = true;
          parser.pause();
          return;
        }
        if (HIDDEN.has(name)) {
          hidden++;
          return;
        }
        if (name === 'br') {
          put('\n');
          return;
        }
        if (CELL.has(name)) {
          if (cells++ > 0) put(' | ');
          return;
        }
        if (name === 'a' && attrs.href && LINK.test(attrs.href.trim())) link = { href: attrs.href.trim(), text: '' };
        if (!BLOCK.has(name)) return;
        lineBreak(name === 'p' || name === 'table' || name === 'blockquote' || /^h\d$/.test(name) ? 2 : 1);
        if (name === 'tr') cells = 0;
        if (name === 'pre') pre++;
        if (name === 'li') put('- ');
      },
      onclosetag(name) {
        depth = Math.max(0, depth - 1);
        if (HIDDEN.has(name)) {
          hidden = Math.max(0, hidden - 1);
          return;
        }
        if (name === 'a' && link) {
          const { href, text } = link;
          link = null;
          // The address beside the words, unless the words are the address.
          if (text.trim() !== href.replace(/^mailto:/i, '')) put(` <${href.replace(/^mailto:/i, '')}>`);
          return;
        }
        if (!BLOCK.has(name)) return;
        if (name === 'pre') pre = Math.max(0, pre - 1);
        lineBreak(name === 'p' || name === 'table' || name === 'blockquote' || /^h\d$/.test(name) ? 2 : 1);
      },
      ontext(data) {
        if (hidden > 0) return;
        let s = pre > 0 ? data : data.replace(/\s+/g, ' ');
        if (!pre && spaced && s.startsWith(' ')) s = s.slice(1);
        if (link && link.text.length < 300) link.text += s.slice(0, 300);
        put(s);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  if (!cut) parser.end();
  const read = cut ? parser.endIndex + 1 : html.length;

  // Lines without trailing blanks, at most one empty line in a row.
  const out: string[] = [];
  for (const line of pieces.join('').split('\n')) {
    const l = line.trimEnd();
    if (l || (out.length && out[out.length - 1] !== '')) out.push(l);
  }
  return { text: out.join('\n').trim().slice(0, maxChars), cut, read };
}
