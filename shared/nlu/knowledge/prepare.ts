// Article write time: Markdown -> the compact form the knowledge index is built from. Kept apart
// from knowledge.ts so that the chat path never bundles the Markdown parsers.
import { MAX_ANSWER_CHARS, type StoredArticle } from './passages.ts';
import { type Block, markdownFormat, markdownToKindedBlocks } from './markdown.ts';

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
 * Blocks -> the units an answer may start at: a heading with what follows it up to the next
 * paragraph, and a list (or table) with its lead-in, the paragraph or heading right before it.
 * An answer never starts at a list's second item, nor ends at a heading.
 */
export function toUnits(blocks: ReadonlyArray<string | Block>): Block[][] {
  const units: Block[][] = [];
  let cur: Block[] = [];
  for (const b of blocks) {
    const block = typeof b === 'string' ? { text: b, kind: 'text' as const } : b;
    const last = cur[cur.length - 1];
    // A list joins what is before it; a paragraph joins only a heading; a heading joins only a heading.
    const joins = last !== undefined && (block.kind === 'item' || last.kind === 'heading');
    if (!joins && cur.length) {
      units.push(cur);
      cur = [];
    }
    cur.push(block);
  }
  if (cur.length) units.push(cur);
  return units;
}

/**
 * Blocks of plain text -> passages of whole sentences, each starting at a unit (see toUnits).
 * Sentences of one block are joined by a space, blocks by a line break; a passage closes at a
 * unit boundary once it is half full (or before a heading that would end it), and never grows past
 * `passageChars` unless its first sentence alone does. A unit too long for one passage goes on in
 * the next, which starts again with the unit's lead-in (its heading and the paragraph before its
 * list) when that is short, so that the rest of a list still reads under what introduces it.
 */
export function toPassages(
  blocks: ReadonlyArray<string | Block>,
  passageChars = defaultPrepareOptions.passageChars,
): string[] {
  const size = Math.min(passageChars, MAX_ANSWER_CHARS);
  const passages: string[] = [];
  let cur = '';
  const close = () => {
    if (cur) passages.push(cur);
    cur = '';
  };
  for (const unit of toUnits(blocks)) {
    // A heading never ends a passage: the unit's headings and its next sentence go together.
    const headings = unit.findIndex((b) => b.kind !== 'heading');
    const head =
      headings > 0
        ? [...unit.slice(0, headings).map((b) => b.text), splitSentences(unit[headings]!.text, size)[0] ?? ''].join(
            '\n',
          )
        : '';
    if (cur && (cur.length >= size / 2 || cur.length + 1 + head.length > size)) close();
    const firstItem = unit.findIndex((b) => b.kind === 'item');
    const lead =
      firstItem > 0
        ? unit
            .slice(0, firstItem)
            .map((b) => b.text)
            .join('\n')
        : '';
    const repeatLead = lead.length > 0 && lead.length <= size / 3;
    let sep = cur ? '\n' : '';
    unit.forEach((block, k) => {
      for (const s of splitSentences(block.text, size)) {
        if (cur && cur.length + sep.length + s.length > size) {
          close();
          // The rest of the list under its lead-in again (never a lead-in alone).
          if (repeatLead && k >= firstItem && lead.length + 1 + s.length <= size) {
            cur = lead;
            sep = '\n';
          } else sep = '';
        }
        cur += sep + s;
        sep = ' ';
      }
      sep = '\n';
    });
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
    passages: toPassages(markdownToKindedBlocks(input.body), o.passageChars),
    format: markdownFormat(input.body),
  };
}
