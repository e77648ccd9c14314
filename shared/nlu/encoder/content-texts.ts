import type { StoredArticle } from '../knowledge/passages.ts';

// Which texts of a tenant's content get sentence vectors, in the form the models key them by
// (`TextVectors`: the exact trimmed text). The indexer embeds what this lists and nothing else;
// the chat's models look their texts up in the result.

export interface TenantContent {
  intents: ReadonlyArray<{ id: string; name: string; trainingPhrases: readonly string[] }>;
  articles: ReadonlyArray<Pick<StoredArticle, 'id' | 'title' | 'questions' | 'passages'>>;
  /** `none` examples (taught intent and article examples are already phrases and questions). */
  none: readonly string[];
  /** Customers' messages the assistant did not answer well: the unanswered view groups them by meaning. */
  unanswered: readonly string[];
}

export interface ContentTexts {
  /** Every distinct text, in first-seen order. */
  texts: string[];
  /** Intent or article id -> its texts: it is embedded when all of them are. */
  owners: Map<string, string[]>;
}

const clean = (texts: Iterable<string>) => [...new Set([...texts].map((t) => t.trim()).filter(Boolean))];

export function contentTexts(c: TenantContent): ContentTexts {
  const owners = new Map<string, string[]>();
  for (const i of c.intents) owners.set(i.id, clean(i.trainingPhrases));
  for (const a of c.articles) owners.set(a.id, clean([a.title, ...a.questions, ...a.passages]));
  const texts = clean([...[...owners.values()].flat(), ...c.none, ...c.unanswered]);
  return { texts, owners };
}
