// One answer policy over intents and articles: each candidate's raw evidence becomes the
// probability that it is the right answer, on one scale for both kinds, so the better answer wins
// and one threshold means the same for 5 intents or 150, 3 articles or 1,000.
//
// Evidence of an intent: the classifier's confidence, its margin over the second intent, and how
// much of the message the intent's own phrases say (the share of the message's information the
// phrases cover, and how closely the nearest phrase says the same thing; an intent that the
// classifier picks on one shared word ("order") while the rest of the message is about something
// else covers little of it), and how nearly the nearest phrase is spelled like the message.
// Evidence of an article: the knowledge index's confidence, its margin over the next article, its
// shares, and how nearly its title or one of its questions is spelled like the message. Both count
// the log of the number of candidates, as more candidates give more chances to match by luck.
//
// The fitted constants are logistic models in calibration.json (features by name, and for each
// model the data it was fitted on), fitted by test/bench/answers/fit.ts on tuning data only; the
// unit tests check its feature names against the lists below.
import type { Features } from '../knowledge/retrieval.ts';
import fitted from './calibration.json' with { type: 'json' };

export interface IntentEvidence {
  confidence: number; // the classifier's, 0..1
  margin: number; // over the next intent's confidence
  cover: number; // share of the message the intent's phrases and name cover (0..1)
  similarity: number; // Dice of the message and the intent's nearest phrase (0..1)
  spelling: number; // Dice of the message's and the nearest phrase's character trigrams (0..1)
  candidates: number; // enabled intents
  /**
   * The classifier's confidence in its best three intents together: what "none" and the hidden
   * background class leave. An in-scope message that two intents share keeps it near 1, an
   * off-topic one does not (a feature with the encoder's evidence only: see CALIBRATION_MEANING).
   */
  inScope: number;
  /** The sentence encoder's cosine of the message and the intent's closest phrase (only with vectors of both). */
  meaning?: number;
  /** That cosine less the best of the other candidate intents'. */
  meaningMargin?: number;
}

export interface ArticleEvidence {
  confidence: number; // the knowledge index's, 0..1
  margin: number; // over the next article's confidence
  features: Features;
  candidates: number; // published articles
}

export const logit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};
export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

// The fewest candidates the tuning tenants had: a smaller tenant counts as that many, so that the
// fit is not stretched beyond what it saw (a one-article knowledge base would otherwise answer
// anything that shares a word with its article).
const MIN_INTENTS = 5;
const MIN_ARTICLES = 4;

/** The intent model's features, in order; with the encoder's evidence (`meaning` present) its two features and the logit of `inScope` follow. */
export const INTENT_FEATURES = [
  'bias',
  'logit confidence',
  'margin',
  'cover',
  'similarity',
  'log candidates',
  'spelling',
] as const;
export const INTENT_MEANING_FEATURES = [...INTENT_FEATURES, 'meaning', 'meaning margin', 'logit in scope'] as const;

export function intentFeatures(e: IntentEvidence): number[] {
  const lexical = [
    1,
    logit(e.confidence),
    e.margin,
    e.cover,
    e.similarity,
    Math.log(Math.max(MIN_INTENTS, e.candidates)),
    e.spelling,
  ];
  return e.meaning === undefined ? lexical : [...lexical, e.meaning, e.meaningMargin ?? 0, logit(e.inScope)];
}

/** The article model's features, in order (the encoder's and the crowded switch's: see `articleFeatures`). */
export const ARTICLE_FEATURES = [
  'bias',
  'logit confidence',
  'margin',
  'key',
  'passage',
  'similarity',
  'unseen',
  'log candidates',
  'semantic',
  'spelling',
] as const;
const ARTICLE_MEANING_SPARSE = [
  ...ARTICLE_FEATURES,
  'meaning',
  'meaning gap',
  'meaning lift',
  'meaning key',
  'meaning passage',
  'meaning key gap',
  'meaning passage gap',
  'log meaning keys',
] as const;
/** With the encoder's evidence: the features, then each again times how crowded the knowledge base is. */
export const ARTICLE_MEANING_FEATURES: readonly string[] = [
  ...ARTICLE_MEANING_SPARSE,
  ...ARTICLE_MEANING_SPARSE.map((n) => `crowded x ${n}`),
];

// A knowledge base's crowd (see knowledge/article-meaning.ts) when its titles have no vectors: between the
// help desks' (0.48 to 0.64) and StackFAQ's (0.71 to 0.79).
const CROWD = 0.65;
// Where a knowledge base turns from sparse to crowded, and how gradually (see `articleFeatures`).
export const CROWDED = 0.675;
const CROWDED_WIDTH = 0.01;

/**
 * With the encoder's evidence, what tells "this article answers it" from "a neighbour in topic":
 * the closeness to the article's title or questions and to its passages apart, each with its gap
 * over the closest other article (StackFAQ's left-out questions are told by the title's gap, the
 * help desks' answers by the passage's closeness), the gap of the best of both, how far the
 * article stands above the knowledge base's mean, and the log of how many titles and questions it
 * has (each a chance to come close: with 3 questions a day, StackFAQ's left-out questions were
 * answered 23 % of the time without it, 8 % with it). The same evidence means less in a crowded
 * knowledge base (StackFAQ's threads, where a neighbour in topic is as close as the answer) than in
 * a sparse one (a shop's 13 articles): the features come twice, the second time times how crowded
 * it is (0 to 1 around CROWDED), so that a crowded knowledge base has weights of its own.
 */
export function articleFeatures(e: ArticleEvidence): number[] {
  const f = e.features;
  const lexical = [
    1,
    logit(e.confidence),
    e.margin,
    f.key,
    f.passage,
    f.similarity,
    f.unseen,
    Math.log(Math.max(MIN_ARTICLES, e.candidates)),
    f.semantic,
    f.spelling,
  ];
  const m = f.meaning;
  if (m === undefined) return lexical;
  const x = [
    ...lexical,
    m,
    f.meaningGap ?? 0,
    f.meaningLift ?? 0,
    f.meaningKey ?? m,
    f.meaningPassage ?? m,
    f.meaningKeyGap ?? 0,
    f.meaningPassageGap ?? 0,
    Math.log(f.meaningKeys ?? 1),
  ];
  const crowded = sigmoid(((f.meaningCrowd ?? CROWD) - CROWDED) / CROWDED_WIDTH);
  return [...x, ...x.map((v) => v * crowded)];
}

/** One fitted model as calibration.json holds it: its features by name, one weight each. */
export interface FittedModel {
  features: string[];
  weights: number[];
  fitted?: Record<string, unknown>;
}
export interface CalibrationFile {
  version: number;
  provenance: Record<string, unknown>;
  models: Record<'intent' | 'intentMeaning' | 'article' | 'articleMeaning', FittedModel>;
}
export const CALIBRATION_FILE = fitted as CalibrationFile;

/**
 * Words only: the order of `intentFeatures` and `articleFeatures`. The tuning tenants include
 * few-phrase ones (6 to 20 phrases an intent, 20 to 150 intents), and each kind's intercept is
 * moved so that the documented defaults choose what the rule's pair chose.
 */
export const CALIBRATION = {
  intent: CALIBRATION_FILE.models.intent.weights,
  article: CALIBRATION_FILE.models.article.weights,
};

/**
 * The same with the sentence encoder's evidence, used for a candidate whose evidence has it. The
 * intent half has `inScope` too: without it a 10-phrase tenant's hard in-scope messages, which two
 * intents share, looked off-topic (BANKING77 10 an intent: 20 % fallback; with it 5 %, and 93.5 ->
 * 93.1 % in scope on CLINC150 at the same oos recall).
 */
export const CALIBRATION_MEANING = {
  intent: CALIBRATION_FILE.models.intentMeaning.weights,
  article: CALIBRATION_FILE.models.articleMeaning.weights,
};

const dot = (w: readonly number[], x: readonly number[]) => w.reduce((s, wi, i) => s + wi * x[i]!, 0);
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The probability that the intent is the right answer. */
export const intentProbability = (e: IntentEvidence, w?: readonly number[]) =>
  round3(
    sigmoid(dot(w ?? (e.meaning === undefined ? CALIBRATION.intent : CALIBRATION_MEANING.intent), intentFeatures(e))),
  );
/** The probability that the article is the right answer. */
export const articleProbability = (e: ArticleEvidence, w?: readonly number[]) =>
  round3(
    sigmoid(
      dot(
        w ?? (e.features.meaning === undefined ? CALIBRATION.article : CALIBRATION_MEANING.article),
        articleFeatures(e),
      ),
    ),
  );

/** Defaults of `nlu.confidenceThreshold` and `knowledge.threshold`, on the calibrated scale (see docs/API-NOTES.md). */
export const DEFAULT_INTENT_THRESHOLD = 0.46;
export const DEFAULT_ARTICLE_THRESHOLD = 0.5;
// The least an unedited starter intent that gives way to articles answers at: written for any
// business, it comes near questions it was not written for (shared/core/vocabulary.ts).
export { STARTER_THRESHOLD } from '../../core/vocabulary.ts';

export type Choice = 'intent' | 'article' | 'fallback';

/**
 * The better answer of the two, each at its own threshold; the fallback when neither reaches it.
 * A tie goes to the intent (its reply is the team's own words for exactly that question).
 */
export function choose(
  intent: number | null,
  article: number | null,
  thresholds: { intent: number; article: number },
): Choice {
  const i = intent !== null && intent >= thresholds.intent ? intent : -1;
  const a = article !== null && article >= thresholds.article ? article : -1;
  if (i < 0 && a < 0) return 'fallback';
  return i >= a ? 'intent' : 'article';
}
