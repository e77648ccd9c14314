// The score of an article for a message: weighted shares of the message's information (idf mass)
// that its title, questions and passages cover, and how closely the message and a title or question
// say the same thing. This raw confidence ranks articles; the answer policy
// (answer-policy.ts) turns it into the calibrated confidence that the API shows.

/** The raw score's threshold that bench:kb chose before the answer policy (its in-process experiments still use it). */
export const DEFAULT_KNOWLEDGE_THRESHOLD = 0.321;

export interface ScoreWeights {
  title: number; // share of the message covered by the title (and tags) or by one question, the better
  key: number; // share covered by the title and the questions together
  passage: number; // best share covered by one passage read with the title
  complete: number; // added as that share goes from COMPLETE to 1: a passage alone can then answer
  similarity: number; // how closely the message and the title (or a question) say the same thing
  prefix: number; // match strength of a vocabulary word that extends a message word ("doc" -> "document")
  variant: number; // match strength of a vocabulary word whose stem differs only in its last letters ("privacy" -> "private")
  fuzzy: number; // match strength of a one-typo neighbour
  synonym: number; // match strength of a learned synonym
  // Match strength of an everyday equivalent (knowledge-lexicon.ts); 0 = none. Off by default: at
  // 0.9 the help desks' right article ranks first for 73 of their 82 tuning messages instead of
  // 56, but with the answer policy refitted the held-out help desks and the support mix were no
  // better (see test/bench/answers.ts), so it waits for a calibration that keeps the gain.
  lexicon: number;
  semanticRank: number; // with word vectors, what the sentence vectors' cosine adds to an article's ranking score
  localSynonym: number; // the same, for a pair one article shows, in that article only
  synonymSpan: number; // statements that differ by at most this many words on each side pair those words
  synonymArticles: number; // a pair is kept when this many articles show it
  prior: number; // unseen words added to every message when taking shares of it
  unseen: number; // weight of a word the knowledge base has never seen, times the idf of a one-article word
  questions: number; // in the confidence (not the ranking), what a question's match counts for beside the title's
  meaningRank: number; // with encoder vectors, what the cosine above the knowledge base's mean adds to an article's ranking score
}

export const defaultScoreWeights: ScoreWeights = {
  title: 0.06,
  key: 0.31,
  passage: 0.23,
  complete: 0.4,
  similarity: 0.4,
  prefix: 0.6,
  variant: 0.7,
  fuzzy: 0.8,
  synonym: 0.7,
  lexicon: 0,
  semanticRank: 0.2,
  localSynonym: 0.3,
  synonymSpan: 3,
  synonymArticles: 2,
  prior: 1,
  unseen: 1.2,
  questions: 0.6,
  meaningRank: 1,
};

/** Shares of the message's idf mass (0..1) and one similarity (0..1) of one article. */
export interface Features {
  key: number; // title and all questions together
  title: number;
  question: number;
  passage: number;
  similarity: number;
  unseen: number; // share of the message in words the knowledge base never uses (not a score feature)
  body: number; // best share one question or passage covers beyond what the title covers (not a score feature)
  semantic: number; // cosine of the message's and the closest title, question or passage's sentence vectors (0 without vectors; not a score feature)
  spelling: number; // Dice of the message's and the closest title or question's character trigrams (not a score feature)
  /** The sentence encoder's cosine of the message and the closest title, question or passage (only when both have vectors). */
  meaning?: number;
  /** The same, of the closest title or question only, and of the closest passage only (NaN-free: absent without one). */
  meaningKey?: number;
  meaningPassage?: number;
  /** Each of those less the closest other article's of the same kind (its title or questions; its passages). */
  meaningKeyGap?: number;
  meaningPassageGap?: number;
  /** `meaning` less the knowledge base's mean closeness: how far the article stands out of the rest. */
  meaningLift?: number;
  /** `meaning` less the closest other article's, over the whole knowledge base (negative: another is closer). */
  meaningGap?: number;
  /** How crowded the knowledge base is (its articles' mean closeness of title to the next title). */
  meaningCrowd?: number;
  /** How many of the article's title and questions have vectors. */
  meaningKeys?: number;
}

// Above this share, one passage (read with its title) says nearly all the message asks.
const COMPLETE = 0.5;

export function score(f: Features, w: ScoreWeights): number {
  const s =
    w.title * Math.max(f.title, f.question) +
    w.key * f.key +
    w.passage * f.passage +
    (w.complete * Math.max(0, f.passage - COMPLETE)) / (1 - COMPLETE) +
    w.similarity * f.similarity;
  return Math.min(1, Math.max(0, s));
}
