// Markdown -> plain text, at article write time only (it pulls in two parsers, so the chat path
// must not import it). marked renders the Markdown to HTML, htmlparser2 walks that HTML as text:
// raw HTML inside the Markdown goes through the same walk, so it is only ever read as text.
import { Parser } from 'htmlparser2';
import { Marked } from 'marked';

// Elements that end a block of text (a paragraph, a list item, a table row...).
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);
// Elements whose content is not text a reader sees.
const HIDDEN = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'svg', 'math', 'head', 'title', 'textarea', 'select']);
const CELL = new Set(['td', 'th']);

// A private instance: options set here never leak into other users of marked.
const marked = new Marked({ gfm: true, async: false });

/** HTML -> blocks of plain text, one per paragraph, list item, heading, table row or code line. */
export function htmlToBlocks(html: string): string[] {
  const blocks: string[] = [];
  let text = '';
  let hidden = 0; // depth inside HIDDEN elements
  let pre = 0; // depth inside <pre>: line breaks are kept there
  let cells = 0; // cells seen in the current row

  const flush = () => {
    const lines = pre > 0 ? text.split('\n') : [text];
    for (const line of lines) {
      const t = line.replace(/\s+/g, ' ').trim();
      if (t) blocks.push(t);
    }
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN.has(name)) hidden++;
        else if (CELL.has(name)) {
          if (cells++ > 0) text = `${text.trimEnd()}, `;
        } else if (BLOCK.has(name)) {
          flush();
          if (name === 'pre') pre++;
          if (name === 'tr') cells = 0;
        }
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        else if (CELL.has(name)) text += ' ';
        else if (BLOCK.has(name)) {
          flush();
          if (name === 'pre') pre = Math.max(0, pre - 1);
        }
      },
      ontext(data) {
        if (hidden === 0) text += data;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return blocks;
}

/** Markdown the parser cannot take: the caller answers 400, the article is not stored. */
export class MarkdownError extends Error {
  override name = 'MarkdownError';
}

// Far above an article body's 20,000 characters: only a guard for callers that skip validation.
export const MAX_MARKDOWN_CHARS = 100_000;

/** Markdown -> blocks of plain text. Links keep their text, images are dropped, code is kept as text. */
export function markdownToBlocks(markdown: string): string[] {
  if (markdown.length > MAX_MARKDOWN_CHARS) throw new MarkdownError(`Markdown longer than ${MAX_MARKDOWN_CHARS} characters`);
  let html: string;
  try {
    html = marked.parse(markdown, { async: false });
  } catch (cause) {
    // marked recurses once per nesting level: a few thousand nested quotes or lists overflow the stack.
    throw new MarkdownError('Markdown nested too deeply to read', { cause });
  }
  return htmlToBlocks(html);
}

/** Markdown -> plain text, one block a line. */
export function markdownToText(markdown: string): string {
  return markdownToBlocks(markdown).join('\n');
}
