// Markdown -> plain text, at article write time only (it pulls in two parsers, so the chat path
// must not import it). marked renders the Markdown to HTML, htmlparser2 walks that HTML as text:
// raw HTML inside the Markdown goes through the same walk, so it is only ever read as text.
import { Parser } from 'htmlparser2';
import { Marked } from 'marked';
import type { TextFormat } from './passages.ts';
// Relative: shared/nlu/package.json makes the NLU its own package scope, where #shared does not resolve.
import { BLOCK, CELL, HIDDEN } from '../../core/html-elements.ts';

// A private instance: options set here never leak into other users of marked.
const marked = new Marked({ gfm: true, async: false });

/** HTML -> blocks of plain text, one per paragraph, list item, heading, table row or code line. */
export function htmlToBlocks(html: string): string[] {
  return htmlToKindedBlocks(html).map((b) => b.text);
}

/**
 * What a block is, for cutting passages at coherent units: a heading, an item of a list (or a row
 * of a table), or running text (a paragraph, a quote, a code line).
 */
export type BlockKind = 'heading' | 'item' | 'text';
export interface Block {
  text: string;
  kind: BlockKind;
}

const HEADING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt', 'summary', 'caption']);
const ITEM = new Set(['li', 'tr', 'dd']);

export function htmlToKindedBlocks(html: string): Block[] {
  const blocks: Block[] = [];
  let text = '';
  let hidden = 0; // depth inside HIDDEN elements
  let pre = 0; // depth inside <pre>: line breaks are kept there
  let cells = 0; // cells seen in the current row
  const open: string[] = []; // the block elements the text is inside, innermost last

  const kind = (): BlockKind => {
    for (let i = open.length - 1; i >= 0; i--) {
      if (HEADING.has(open[i]!)) return 'heading';
      if (ITEM.has(open[i]!)) return 'item';
    }
    return 'text';
  };
  const flush = () => {
    const lines = pre > 0 ? text.split('\n') : [text];
    for (const line of lines) {
      const t = line.replace(/\s+/g, ' ').trim();
      if (t) blocks.push({ text: t, kind: kind() });
    }
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN.has(name)) hidden++;
        else if (CELL.has(name)) {
          if (cells++ > 0) text = `${text.trimEnd()}, `;
        } else if (BLOCK.has(name) || name === 'br') {
          flush();
          if (name !== 'br') open.push(name);
          if (name === 'pre') pre++;
          if (name === 'tr') cells = 0;
        }
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        else if (CELL.has(name)) text += ' ';
        else if (BLOCK.has(name) || name === 'br') {
          flush();
          if (name !== 'br') {
            const at = open.lastIndexOf(name);
            if (at >= 0) open.length = at;
          }
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
  return markdownToKindedBlocks(markdown).map((b) => b.text);
}

/** Markdown -> blocks of plain text, each with its kind (see BlockKind). */
export function markdownToKindedBlocks(markdown: string): Block[] {
  if (markdown.length > MAX_MARKDOWN_CHARS)
    throw new MarkdownError(`Markdown longer than ${MAX_MARKDOWN_CHARS} characters`);
  let html: string;
  try {
    html = marked.parse(markdown, { async: false });
  } catch (cause) {
    // marked recurses once per nesting level: a few thousand nested quotes or lists overflow the stack.
    throw new MarkdownError('Markdown nested too deeply to read', { cause });
  }
  return htmlToKindedBlocks(html);
}

/** Markdown -> plain text, one block a line. */
export function markdownToText(markdown: string): string {
  return markdownToBlocks(markdown).join('\n');
}

/**
 * The inline formatting of an article, by its plain text: what is bold, what is emphasised, what
 * links where (http and https only), which blocks are list items. An answer cut from the article's
 * plain-text passages is formatted again from it by the client (see `formatFor` in knowledge.ts):
 * the answer stays plain text, and no HTML ever leaves the service.
 */
const MAX_FORMAT_ITEMS = 60;
const MAX_FORMAT_TEXT = 200;

export function markdownFormat(markdown: string): TextFormat {
  const out: TextFormat = { strong: [], emphasis: [], links: [], listItems: [] };
  let html: string;
  try {
    html = marked.parse(markdown.slice(0, MAX_MARKDOWN_CHARS), { async: false });
  } catch {
    return out;
  }
  // Open spans: each collects the text seen until its element closes.
  const open: Array<{ tag: string; href?: string; text: string }> = [];
  let hidden = 0;
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  const add = (list: string[], text: string) => {
    const t = norm(text);
    if (t && t.length <= MAX_FORMAT_TEXT && list.length < MAX_FORMAT_ITEMS && !list.includes(t)) list.push(t);
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (HIDDEN.has(name)) {
          hidden++;
          return;
        }
        if (['strong', 'b', 'em', 'i', 'li'].includes(name)) open.push({ tag: name, text: '' });
        else if (name === 'a')
          open.push({
            tag: 'a',
            text: '',
            ...(attrs.href && /^https?:\/\//i.test(attrs.href) ? { href: attrs.href } : {}),
          });
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) {
          hidden = Math.max(0, hidden - 1);
          return;
        }
        const i = open.map((o) => o.tag).lastIndexOf(name);
        if (i < 0) return;
        const [span] = open.splice(i, 1);
        if (name === 'strong' || name === 'b') add(out.strong, span!.text);
        else if (name === 'em' || name === 'i') add(out.emphasis, span!.text);
        else if (name === 'li') add(out.listItems, span!.text);
        else if (span!.href && out.links.length < MAX_FORMAT_ITEMS) {
          const text = norm(span!.text);
          if (text && text.length <= MAX_FORMAT_TEXT) out.links.push({ text, url: span!.href });
        }
      },
      ontext(data) {
        if (hidden === 0) for (const o of open) o.text += data;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out;
}
