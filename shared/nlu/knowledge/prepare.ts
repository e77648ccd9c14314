// Article write time: Markdown -> the compact form the knowledge index is built from. Kept apart
// from knowledge.ts so that the chat path never bundles the Markdown parsers.
import { MAX_ANSWER_CHARS, type StoredArticle } from './passages.ts';
import { markdownFormat, markdownToBlocks } from './markdown.ts';

export { MarkdownError } from './markdown.ts';

export interface ArticleInput {
  id: string;
  title: string;
  body: string; // Markdown
  url?: string | null;
  tags?: string[];
  questions?: string[];
}

export interface PrepareOptions {
  passageChars: number; // a passage closes once it reaches this size (never above MAX_ANSWER_CHARS)
}

export const defaultPrepareOptions: PrepareOptions = { passageChars: 400 };

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Cuts a sentence longer than `max` at the last word boundary that fits (a hard cut if none). */
function cutLong(sentence: string, max: number): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > max) {
    let at = rest.lastIndexOf(' ', max);
    if (at < max / 2) at = max;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

export function splitSentences(block: string, max = MAX_ANSWER_CHARS): string[] {
  const out: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(block)) {
    const s = segment.trim();
    if (s) out.push(...cutLong(s, max));
  }
  return out;
}

/**
 * Blocks of plain text -> passages of whole sentences. Sentences of one block are joined by a
 * space, blocks by a line break; a passage closes at a block boundary once it is half full, and
 * never grows past `passageChars` unless its first sentence alone does.
 */
export function toPassages(blocks: string[], passageChars = defaultPrepareOptions.passageChars): string[] {
  const size = Math.min(passageChars, MAX_ANSWER_CHARS);
  const passages: string[] = [];
  let cur = '';
  const close = () => {
    if (cur) passages.push(cur);
    cur = '';
  };
  for (const block of blocks) {
    if (cur.length >= size / 2) close();
    let sep = cur ? '\n' : '';
    for (const s of splitSentences(block, size)) {
      if (cur && cur.length + sep.length + s.length > size) {
        close();
        sep = '';
      }
      cur += sep + s;
      sep = ' ';
    }
  }
  close();
  return passages;
}

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The stored form of an article: small, JSON-serialisable, everything the index needs. Throws
 * MarkdownError for a body the Markdown parser cannot read (answer 400 naming `body`).
 */
export function prepareArticle(input: ArticleInput, options: Partial<PrepareOptions> = {}): StoredArticle {
  const o = { ...defaultPrepareOptions, ...options };
  return {
    id: input.id,
    title: clean(input.title),
    url: input.url ?? null,
    tags: (input.tags ?? []).map(clean).filter(Boolean),
    questions: (input.questions ?? []).map(clean).filter(Boolean),
    passages: toPassages(markdownToBlocks(input.body), o.passageChars),
    format: markdownFormat(input.body),
  };
}
