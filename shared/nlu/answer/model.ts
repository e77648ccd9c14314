// A tenant's model: its intents trained once (the classifier, their phrases as a lexical index,
// their spelling, their meaning, the team's none examples), then read for every message
// (answer.ts). The service caches it per tenant and version and gives it the intents.
import { trainClassifier, type Classifier, type TrainingIntent } from '../intents/classifier.ts';
import { nameWords } from '../intents/features.ts';
import type { EntitySpec } from '../intents/entities.ts';
import { buildNoneIndex, type NoneIndex } from '../intents/none-examples.ts';
import { intentMeaning, type IntentMeaning } from '../intents/phrase-meaning.ts';
import { buildKnowledgeIndex, type KnowledgeHit, type KnowledgeIndex } from '../knowledge/retrieval.ts';
import { phraseSpelling, type PhraseSpelling } from '../knowledge/phrase-spelling.ts';
import { wordVectors } from '../encoder/glove-file.ts';
import type { TextVectors } from '../encoder/vector-math.ts';

/** An intent as the model reads it; the service's intents carry more, handed back as they are. */
export interface ModelIntent {
  id: string;
  name: string;
  trainingPhrases: string[];
  response: string;
  entities: EntitySpec[];
}

/**
 * What the service decides about its own content, given once at training and kept with the model:
 * the NLU weighs evidence, the service says which intents are starter content and how a reply reads.
 */
export interface ServiceRules<I extends ModelIntent> {
  /** The intents as the classifier learns them (the service gives small talk its everyday phrases). */
  training(intents: I[]): TrainingIntent[];
  /** Whether the intent, ranked first for `text`, gives way to an article that reaches its threshold (starter content does). */
  yieldsToArticles(intent: I, text: string): boolean;
  /** Whether the intent, ranked first and at its threshold, answers even where an article would (asking for a person). */
  honoured(intent: I): boolean;
  /** Whether a message, or a clause of a longer one, may make that request (it names a person). */
  mayAskAlone(clause: string): boolean;
  /** The intent with its settings placeholders filled from `values`; null when one has none (it falls back). */
  withValues(intent: I, values: Record<string, string>): I | null;
  /** An article's reply: the passage that answers, then where it comes from. */
  articleReply(hit: KnowledgeHit): string;
}

/**
 * A tenant's trained intents: the classifier, and the intents' phrases as a lexical index that
 * tells how much of a message an intent's own phrases say and by their spelling (see
 * shared/nlu/policy/answer-policy.ts), and the team's `none` examples (see shared/nlu/intents/none-examples.ts).
 */
export interface AssistantModel<I extends ModelIntent = ModelIntent> {
  version: number | string;
  classifier: Classifier;
  phrases: KnowledgeIndex;
  spelling: PhraseSpelling;
  byName: Map<string, I>;
  none: NoneIndex;
  /** The sentence vectors of each intent's phrases and name that have one (see intentMeaning). */
  meaning: IntentMeaning;
  rules: ServiceRules<I>;
}

/**
 * `vectors`: the sentence vectors of the intents' texts and the none examples (see
 * shared/nlu/policy/to-embed.ts `intentTextsToEmbed`, `noneTextsToEmbed`); texts without one are
 * matched by their words alone.
 */
export function trainModel<I extends ModelIntent>(
  version: number | string,
  enabled: I[],
  rules: ServiceRules<I>,
  none: string[] = [],
  vectors?: TextVectors,
): AssistantModel<I> {
  const meaning = intentMeaning(enabled, vectors);
  return {
    version,
    classifier: trainClassifier(rules.training(enabled), {}, wordVectors(), none, vectors),
    phrases: intentPhraseIndex(enabled),
    spelling: phraseSpelling(new Map(enabled.map((i) => [i.name, i.trainingPhrases]))),
    byName: new Map(enabled.map((i) => [i.name, i])),
    none: buildNoneIndex(none, enabled, {}, vectors, meaning),
    meaning,
    rules,
  };
}

/** Each intent as an "article" of its name and phrases, for the share of a message it covers. */
export function intentPhraseIndex(intents: Array<Pick<ModelIntent, 'name' | 'trainingPhrases'>>): KnowledgeIndex {
  return buildKnowledgeIndex(
    intents.map((i) => ({
      id: i.name,
      title: nameWords(i.name),
      url: null,
      tags: [],
      questions: i.trainingPhrases,
      passages: [],
    })),
    { weights: { synonymSpan: 0 } },
  );
}
