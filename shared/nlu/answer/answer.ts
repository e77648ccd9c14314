// A message read against a tenant's model and knowledge index: the evidence of every candidate,
// its calibrated probability, the answer policy's choice, the reply (or the question for an entity
// the intent lacks). Pure: the service loads the model and the index and hands them in.
import type { Ranked } from '../intents/classifier.ts';
import { nameWords } from '../intents/features.ts';
import { extractEntities, fillTemplate, missingEntities, promptFor, slotValue } from '../intents/entities.ts';
import { unstretch } from '../intents/stretched.ts';
import type { KnowledgeHit, KnowledgeIndex } from '../knowledge/retrieval.ts';
import type { TextFormat } from '../knowledge/passages.ts';
import { wordVectors } from '../encoder/glove-file.ts';
import {
  articleProbability,
  choose,
  intentProbability,
  STARTER_THRESHOLD,
  type ArticleEvidence,
  type IntentEvidence,
} from '../policy/answer-policy.ts';
import { coveredText, offTopicWord, type CoveredText } from '../policy/answerability.ts';
import type { AssistantModel, ModelIntent } from './model.ts';

/** Every candidate with the evidence behind it, best first by kind. */
export interface Evidence {
  intents: Array<{ ranked: Ranked; evidence: IntentEvidence }>;
  articles: Array<{ hit: KnowledgeHit; evidence: ArticleEvidence }>;
}

/**
 * The raw evidence of the best `n.intents` intents and (with an index) the best `n.articles`
 * articles (3 each, at most 10 articles). `messageVector`: the message's sentence vector (absent:
 * words only).
 */
export function evidenceFor(
  model: AssistantModel,
  index: KnowledgeIndex | null,
  message: string,
  n = { intents: 3, articles: 3 },
  messageVector?: Float32Array,
): Evidence {
  // "byee", "hiii": a stretched word that no vocabulary knows is read as the word it stretches.
  const vocabulary = wordVectors().index;
  const text = unstretch(message, (w) => vocabulary.has(w) || model.phrases.knows(w) || (index?.knows(w) ?? false));
  const ranking = model.classifier.classify(text, n.intents + 1, messageVector);
  const lexical = new Map(model.phrases.explain(text, 10).map((e) => [e.articleId, e.features]));
  // The encoder's closeness of the message to each candidate's closest phrase (null: no vectors).
  const close = ranking.map((r) => (messageVector ? model.meaning.closeness(messageVector, r.intent) : null));
  const inScope = ranking.slice(0, 3).reduce((s, r) => s + r.confidence, 0);
  const intents = ranking.slice(0, n.intents).map((ranked, k) => {
    const f = lexical.get(ranked.intent);
    const meaning = close[k];
    const others = close.filter((c, j) => j !== k && c !== null) as number[];
    return {
      ranked,
      evidence: {
        confidence: ranked.confidence,
        margin: ranked.confidence - (ranking[k + 1]?.confidence ?? 0),
        cover: f?.key ?? 0,
        similarity: f?.similarity ?? 0,
        spelling: model.spelling.nearest(text, ranked.intent),
        candidates: model.byName.size,
        inScope,
        ...(meaning == null ? {} : { meaning, meaningMargin: meaning - Math.max(-1, ...others) }),
      },
    };
  });
  const hits = index
    ? index.search(text, { limit: Math.min(10, n.articles + 1), ...(messageVector ? { vector: messageVector } : {}) })
    : [];
  const articles = hits.slice(0, n.articles).map((hit, k) => ({
    hit,
    evidence: {
      confidence: hit.confidence,
      margin: hit.confidence - (hits[k + 1]?.confidence ?? 0),
      features: hit.features,
      candidates: index!.size,
    },
  }));
  return { intents, articles };
}

/** An intent that asked for an entity it cannot answer without, with what it has already. */
export interface Pending {
  intent: string;
  entities: Record<string, string>;
  asked: string;
}

export interface Understanding<I extends ModelIntent = ModelIntent> {
  intent: I | null;
  confidence: number;
  ranking: Ranked[];
  entities: Record<string, string>;
  reply: string;
  /** The intent waits for an entity the reply asks for (kept on the conversation for the next message); null when it answered. */
  pending: Pending | null;
}

export interface Source {
  articleId: string;
  title: string;
  url: string | null;
}
/** An article's answer: its best passage as the reply, and the articles that reach the threshold as sources. */
export interface KnowledgeAnswer {
  confidence: number;
  articleId: string;
  title: string;
  reply: string;
  sources: Source[];
  format?: TextFormat;
}

/** The intent's answer with `entities`, or, while one it cannot answer without is missing, the question for it. */
export function respond<I extends ModelIntent>(
  intent: I,
  entities: Record<string, string>,
): Pick<Understanding<I>, 'intent' | 'entities' | 'reply' | 'pending'> {
  const missing = missingEntities(intent, entities)[0];
  if (!missing) return { intent, entities, reply: fillTemplate(intent.response, entities), pending: null };
  return {
    intent,
    entities,
    reply: promptFor(missing),
    pending: { intent: intent.name, entities, asked: missing.name },
  };
}

/**
 * The answer to a message that follows a question for an entity: when the message gives it, the
 * waiting intent answers (or asks for the next one it lacks); else null, and the message is read
 * as any other (the customer moved on, and the question is dropped).
 */
export function continuePending<I extends ModelIntent>(
  model: AssistantModel<I>,
  pending: Pending,
  text: string,
  values: Record<string, string> = {},
): Pick<Understanding<I>, 'intent' | 'entities' | 'reply' | 'pending'> | null {
  const stored = model.byName.get(pending.intent);
  const intent = stored ? model.rules.withValues(stored, values) : null;
  const spec = intent?.entities.find((e) => e.name === pending.asked);
  const value = spec ? slotValue(text, spec) : null;
  if (!intent || value === null) return null;
  return respond(intent, { ...pending.entities, ...extractEntities(text, intent.entities), [pending.asked]: value });
}

export interface Thresholds {
  intent: number;
  article: number;
}

/**
 * The answer policy: every message is matched against the intents and (unless `index` is null)
 * the articles; each candidate gets its calibrated probability of being right, and the better one
 * that reaches its kind's threshold answers, else the fallback. The team's content comes first:
 * where an article reaches its threshold, an intent the team did not write or edit (starter
 * content) does not answer instead. An intent whose settings placeholder has no value in `values`
 * falls back. Pure apart from the model.
 */
export function answer<I extends ModelIntent>(
  model: AssistantModel<I>,
  index: KnowledgeIndex | null,
  text: string,
  thresholds: Thresholds,
  fallbackMessage: string,
  messageVector?: Float32Array,
  values: Record<string, string> = {},
  clauseVectors: ReadonlyMap<string, Float32Array> = new Map(),
): { nlu: Understanding<I>; knowledge: KnowledgeAnswer | null } {
  const { rules } = model;
  const { ranking, hits } = calibrated(evidenceFor(model, index, text, undefined, messageVector));
  // The tenant's taught "none" examples may overrule the choice afterwards (the service's decision).
  let choice = choose(ranking[0]?.confidence ?? null, hits[0]?.confidence ?? null, thresholds);
  const asked = honouredRequest(model, text, ranking[0], thresholds, clauseVectors);
  const top = asked ?? ranking[0];
  const articleAnswers = hits[0] !== undefined && hits[0].confidence >= thresholds.article;
  // A request the service always honours (a person) is not outweighed by an article on the problem beside it.
  if (asked) choice = 'intent';
  // Starter content stands aside for the team's article that answers, below the starter bar, and off
  // the subject it was written for ("is parking free" is not an hours question).
  else if (choice === 'intent' && starterStandsAside(model, top!, text, thresholds, articleAnswers))
    choice = choose(null, hits[0]?.confidence ?? null, thresholds);

  let nlu: Understanding<I> = {
    intent: null,
    confidence: top?.confidence ?? 0,
    ranking,
    entities: {},
    reply: fallbackMessage,
    pending: null,
  };
  let knowledge: KnowledgeAnswer | null = null;
  const intent = choice === 'intent' ? rules.withValues(model.byName.get(top!.intent)!, values) : null;
  if (intent) {
    nlu = { ...nlu, ...respond(intent, extractEntities(text, intent.entities)) };
  } else if (choice === 'article') {
    const best = hits[0]!;
    knowledge = {
      confidence: best.confidence,
      articleId: best.articleId,
      title: best.title,
      reply: rules.articleReply(best),
      ...(best.format ? { format: best.format } : {}),
      // Only articles that reach the threshold too: a link to an article that does not answer helps no one.
      sources: hits
        .filter((h) => h.confidence >= thresholds.article)
        .map((h) => ({ articleId: h.articleId, title: h.title, url: h.url })),
    };
  }
  return { nlu, knowledge };
}

/** A starter intent that gives way to articles, ranked first where an article answers, below STARTER_THRESHOLD, or off its topic. */
function starterStandsAside<I extends ModelIntent>(
  model: AssistantModel<I>,
  top: Ranked,
  text: string,
  thresholds: Thresholds,
  articleAnswers: boolean,
): boolean {
  const intent = model.byName.get(top.intent)!;
  if (!model.rules.yieldsToArticles(intent, text)) return false;
  return (
    articleAnswers || top.confidence < Math.max(thresholds.intent, STARTER_THRESHOLD) || offTopicStarter(intent, text)
  );
}

const starterTexts = new WeakMap<ModelIntent, CoveredText>();
/**
 * A starter intent (one that gives way to articles) that answers at once (the hours), asked about a subject
 * its phrases never speak of (see shared/nlu/policy/answerability.ts). One that first asks for what
 * it needs (the order number) is left alone: genuine order questions name the product ("ordered a
 * pump online last wk, still not here"), and its question states nothing about the business.
 */
function offTopicStarter(intent: ModelIntent, text: string): boolean {
  if (intent.entities.some((e) => e.required)) return false;
  const vectors = wordVectors();
  let covered = starterTexts.get(intent);
  if (!covered) {
    covered = coveredText([nameWords(intent.name), ...intent.trainingPhrases].join('\n'), vectors);
    starterTexts.set(intent, covered);
  }
  return offTopicWord(text, covered, vectors) !== null;
}

// Where a longer message's clauses part: "my kiln arrived cracked, I need to talk to a person".
const CLAUSE = /[,;:.!?]+|\s(?:and|but|so|because)\s/i;
/** The clauses read on their own at most (the first two and the last two): a bound on a long message's cost. */
const MAX_CLAUSES = 4;

/**
 * A message's clauses that may ask on their own for what the service honours: none for a message
 * of one clause. A short clause read alone is easily near a request for a person in meaning ("I
 * would like a refund" beside "I would like to speak to staff"), so only one that names a person
 * (the service's `mayAskAlone`) is read.
 */
function clausesOf<I extends ModelIntent>(model: AssistantModel<I>, text: string): string[] {
  let clauses = text
    .split(CLAUSE)
    .map((c) => c.trim())
    .filter((c) => c.split(/\s+/).length >= 2);
  if (clauses.length < 2) return [];
  if (clauses.length > MAX_CLAUSES) clauses = [...clauses.slice(0, 2), ...clauses.slice(-2)];
  return clauses.filter((c) => model.rules.mayAskAlone(c));
}

/** The intent that a clause read alone ranks first (`vector`: the clause's sentence vector). */
const clauseTop = <I extends ModelIntent>(model: AssistantModel<I>, clause: string, vector?: Float32Array) =>
  calibrated(evidenceFor(model, null, clause, undefined, vector)).ranking[0];

const isHonoured = <I extends ModelIntent>(model: AssistantModel<I>, r: Ranked | undefined): r is Ranked =>
  r !== undefined && model.rules.honoured(model.byName.get(r.intent)!);

/**
 * The clauses of a message whose words alone rank first a request the service always honours (a
 * person): the ones worth a sentence vector of their own (`answer`'s `clauseVectors`), as a model
 * that reads meaning is only sure of a clause with its vector. Most messages have none.
 */
export function clausesToEmbed<I extends ModelIntent>(model: AssistantModel<I>, text: string): string[] {
  return clausesOf(model, text).filter((c) => isHonoured(model, clauseTop(model, c)));
}

/**
 * The intent of a request that the service always honours (asking for a person) when the message
 * makes one at the intent threshold: ranked first on the whole message that names a person, or, in
 * a message of several clauses, ranked first on one clause that names one, read alone. Beside a
 * problem, such a request is a small part of the message's words, and the problem's words outweigh
 * it in the whole message's ranking.
 */
function honouredRequest<I extends ModelIntent>(
  model: AssistantModel<I>,
  text: string,
  top: Ranked | undefined,
  thresholds: Thresholds,
  clauseVectors: ReadonlyMap<string, Float32Array>,
): Ranked | null {
  const sure = (r: Ranked | undefined): r is Ranked => isHonoured(model, r) && r.confidence >= thresholds.intent;
  if (sure(top) && model.rules.mayAskAlone(text)) return top;
  for (const clause of clausesOf(model, text)) {
    const first = clauseTop(model, clause, clauseVectors.get(clause));
    if (sure(first)) return first;
  }
  return null;
}

/** The calibrated ranking of each kind; a lower-ranked candidate never shows more confidence than the one above it. */
function calibrated({ intents, articles }: Evidence) {
  let above = 1;
  const ranking: Ranked[] = intents.map(({ ranked, evidence }) => {
    above = Math.min(above, intentProbability(evidence));
    return { intent: ranked.intent, confidence: above };
  });
  above = 1;
  const hits = articles.map(({ hit, evidence }) => {
    above = Math.min(above, articleProbability(evidence));
    return { ...hit, confidence: above };
  });
  return { ranking, hits };
}

/**
 * Every enabled intent and the 10 best articles, in the assistant's own order for `text`, each with
 * the calibrated confidence the answer policy weighs: what should have answered a message is
 * offered in the order the assistant would have chosen it.
 */
export function candidatesFor(
  model: AssistantModel,
  index: KnowledgeIndex | null,
  text: string,
  messageVector?: Float32Array,
) {
  const { ranking, hits } = calibrated(
    evidenceFor(model, index, text, { intents: model.byName.size, articles: 10 }, messageVector),
  );
  return {
    intents: ranking.flatMap((r) => {
      const intent = model.byName.get(r.intent);
      return intent ? [{ id: intent.id, name: r.intent, confidence: r.confidence }] : [];
    }),
    articles: hits.map((h) => ({ articleId: h.articleId, title: h.title, confidence: h.confidence })),
  };
}
