// Which texts of a tenant's content the sentence encoder embeds: the vectors that the models read
// (TextVectors) are keyed by exactly these trimmed texts. Embedding happens when content is
// written; the models take whatever vectors exist, and a text without one is matched by its words.
import type { StoredArticle } from '../knowledge/passages.ts';
import { articleTextsToEmbed } from '../knowledge/article-meaning.ts';
import { intentTextsToEmbed } from '../intents/phrase-meaning.ts';

const trimmed = (texts: Iterable<string>) => [...texts].map((t) => t.trim()).filter((t) => t.length > 0);

/** The team's `none` examples. */
export function noneTextsToEmbed(none: readonly string[]): string[] {
  return trimmed(none);
}

/** Every text of a tenant's content that needs a vector, each once. */
export function textsToEmbed(content: {
  intents?: ReadonlyArray<{ name: string; trainingPhrases: readonly string[] }>;
  articles?: ReadonlyArray<Pick<StoredArticle, 'title' | 'questions' | 'passages'>>;
  none?: readonly string[];
}): string[] {
  return [
    ...new Set([
      ...(content.intents ?? []).flatMap(intentTextsToEmbed),
      ...(content.articles ?? []).flatMap(articleTextsToEmbed),
      ...noneTextsToEmbed(content.none ?? []),
    ]),
  ];
}

export { articleTextsToEmbed, intentTextsToEmbed };
