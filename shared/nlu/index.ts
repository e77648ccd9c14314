// The NLU's one entry: code outside shared/nlu imports it from here, never from a module inside
// (the lint holds it, rule `nlu-through-index`). Inside, modules import each other directly.
// docs/NLU.md says what each part does.

// ---- A tenant's model and a message's answer (answer/): trained from the intents, read against
// the knowledge index; the service loads both and keeps them per tenant.
export { trainModel, type AssistantModel, type ModelIntent, type ServiceRules } from './answer/model.ts';
export {
  answer,
  clausesToEmbed,
  candidatesFor,
  continuePending,
  evidenceFor,
  type Evidence,
  type KnowledgeAnswer,
  type Pending,
  type Source,
  type Thresholds,
  type Understanding,
} from './answer/answer.ts';
export { messageToRead } from './policy/message-text.ts';
export {
  articleProbability,
  DEFAULT_ARTICLE_THRESHOLD,
  DEFAULT_INTENT_THRESHOLD,
  intentProbability,
  STARTER_THRESHOLD,
} from './policy/answer-policy.ts';

// ---- Intents: entities and reply templates, what the classifier learns from, the none examples,
// the unanswered messages grouped.
export {
  checkPattern,
  ENTITY_TYPES,
  fillTemplate,
  MAX_PATTERN_LENGTH,
  MAX_PROMPT_LENGTH,
  templateNames,
  type EntitySpec,
} from './intents/entities.ts';
export type { TrainingIntent } from './intents/classifier.ts';
export type { NoneIndex } from './intents/none-examples.ts';
export { groupMessages } from './intents/message-groups.ts';

// ---- Knowledge: an article prepared at write time (Markdown to passages), the index built from
// the stored articles.
export { MarkdownError, prepareArticle } from './knowledge/prepare.ts';
export { markdownToBlocks } from './knowledge/markdown.ts';
export {
  buildKnowledgeIndex,
  type KnowledgeHit,
  type KnowledgeIndex,
  type StoredArticle,
} from './knowledge/retrieval.ts';
export type { TextFormat } from './knowledge/passages.ts';

// ---- Vectors: the word vectors, the sentence encoder (its runtime loads on the first embedding),
// the texts of a tenant's content that get a sentence vector, stored in int8.
export { wordVectors } from './encoder/glove-file.ts';
export { encoder, MESSAGE_TOKENS } from './encoder/encoder.ts';
export { dequantize, quantize, type TextVectors } from './encoder/vector-math.ts';
export { articleTextsToEmbed, intentTextsToEmbed, noneTextsToEmbed } from './policy/to-embed.ts';

// ---- For the benchmarks and tests: the parts they tune or check one by one. Product code uses
// what is above.
export { batches, cosine, DIMS, unit } from './encoder/encoder.ts';
export { turns, type Lane } from './encoder/turns.ts';
export { BACKGROUND_PHRASES, backgroundFor } from './intents/background.ts';
export {
  rng,
  trainClassifier,
  type Classifier,
  type ClassifierOptions,
  type Ranked,
} from './intents/classifier.ts';
export { extractEntities, missingEntities, promptFor, slotValue } from './intents/entities.ts';
export { buildNoneIndex } from './intents/none-examples.ts';
export { deserializeClassifier, serializeClassifier } from './intents/serialize.ts';
export { unstretch } from './intents/stretched.ts';
export { intentPhraseIndex } from './answer/model.ts';
export { articleMeaning } from './knowledge/article-meaning.ts';
export { htmlToBlocks, MAX_MARKDOWN_CHARS, markdownToKindedBlocks, markdownToText } from './knowledge/markdown.ts';
export { formatFor } from './knowledge/passages.ts';
export { phraseSpelling } from './knowledge/phrase-spelling.ts';
export { splitSentences, toPassages, toUnits, type ArticleInput, type PrepareOptions } from './knowledge/prepare.ts';
export {
  clampAnswer,
  DEFAULT_KNOWLEDGE_THRESHOLD,
  MAX_ANSWER_CHARS,
  type KnowledgeIndexOptions,
} from './knowledge/retrieval.ts';
export {
  ARTICLE_FEATURES,
  ARTICLE_MEANING_FEATURES,
  articleFeatures,
  CALIBRATION,
  CALIBRATION_FILE,
  choose,
  INTENT_FEATURES,
  INTENT_MEANING_FEATURES,
  intentFeatures,
  logit,
  sigmoid,
  type ArticleEvidence,
  type IntentEvidence,
} from './policy/answer-policy.ts';
export { coveredText, uncoveredWords } from './policy/answerability.ts';
export { MESSAGE_READ_CHARS } from './policy/message-text.ts';
export { textsToEmbed } from './policy/to-embed.ts';
