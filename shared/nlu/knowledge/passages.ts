// The stored form of an article (made at write time by knowledge-prepare.ts) and the answer cut
// from one of its passages.

export const MAX_ANSWER_CHARS = 600;

/** What the database stores per article (made by prepareArticle at write time). */
export interface StoredArticle {
  id: string;
  title: string;
  url: string | null;
  tags: string[];
  questions: string[];
  passages: string[]; // plain text, whole sentences, at most MAX_ANSWER_CHARS each
  /** The body's inline formatting by plain text (absent for articles stored before it was kept). */
  format?: TextFormat;
}

/** Bold, emphasised and linked phrases and list items of an article, by their plain text (markdownFormat). */
export interface TextFormat {
  strong: string[];
  emphasis: string[];
  links: Array<{ text: string; url: string }>;
  listItems: string[];
}

/** The part of an article's formatting that an answer cut from it contains; null when none. */
export function formatFor(answer: string, format: TextFormat | undefined): TextFormat | null {
  if (!format || !answer) return null;
  const lines = new Set(answer.split('\n').map((l) => l.trim()));
  const out: TextFormat = {
    strong: format.strong.filter((t) => answer.includes(t)),
    emphasis: format.emphasis.filter((t) => answer.includes(t)),
    links: format.links.filter((l) => answer.includes(l.text)),
    listItems: format.listItems.filter((t) => lines.has(t)),
  };
  return out.strong.length || out.emphasis.length || out.links.length || out.listItems.length ? out : null;
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Whole sentences from the start of a passage, at most MAX_ANSWER_CHARS (passages made by prepareArticle already fit). */
export function clampAnswer(passage: string): string {
  if (passage.length <= MAX_ANSWER_CHARS) return passage;
  let out = '';
  for (const { segment } of sentences.segment(passage)) {
    if (out.length + segment.length > MAX_ANSWER_CHARS) break;
    out += segment;
  }
  return (
    out.trim() ||
    `${passage.slice(0, passage.lastIndexOf(' ', MAX_ANSWER_CHARS - 1) + 1 || MAX_ANSWER_CHARS - 1).trim()}…`
  );
}
