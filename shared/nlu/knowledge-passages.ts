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
  return out.trim() || `${passage.slice(0, passage.lastIndexOf(' ', MAX_ANSWER_CHARS - 1) + 1 || MAX_ANSWER_CHARS - 1).trim()}…`;
}
