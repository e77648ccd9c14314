// Exploration of the answerability check (docs/decisions/008-answer-policy-coverage.md): for every
// tuning message that an article answers, the message's content words that the article does not
// hold, with each word's frequency rank in the word vectors and its closest word of the article.
// Tuning data only: the help desks' messages outside their lockbox and the truth desks' messages
// not marked held out. `npx tsx test/bench/answers/answerability.ts`
import {
  answer,
  coveredText,
  DEFAULT_ARTICLE_THRESHOLD,
  DEFAULT_INTENT_THRESHOLD,
  markdownToText,
  uncoveredWords,
  wordVectors,
} from '#shared/nlu/index.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { helpDesks, type Scenario } from './data.ts';
import { buildScenario, scenarioVectors } from './inprocess.ts';
import { truthDesks } from './truth.ts';

const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
const truth: Scenario[] = truthDesks().map((d) => ({
  name: d.business,
  intents: starterIntents.map((i) => ({ ...i, trainingPhrases: i.trainingPhrases })) as Scenario['intents'],
  articles: d.articles.map((a) => ({ ...a, url: a.url ?? '' })),
  messages: d.messages
    .filter((m) => !m.heldOut)
    .map((m) => ({
      text: m.text,
      expect: m.kind === 'article' ? { article: m.article! } : { fallback: true as const },
      group: m.kind === 'article' ? ('article' as const) : ('fallback' as const),
      heldOut: false,
    })),
}));
const desks = helpDesks().map((s) => ({ ...s, messages: s.messages.filter((m) => !m.lockbox) }));
const scenarios = [...truth, ...desks];
const encoded = process.env.ENCODER === '0' ? undefined : await scenarioVectors(scenarios);
const vectors = wordVectors();
for (const s of scenarios) {
  const b = buildScenario(s, encoded);
  const texts = new Map(
    s.articles.map((a) => [a.title, [a.title, ...(a.questions ?? []), markdownToText(a.body)].join('\n')]),
  );
  for (const m of s.messages) {
    const r = answer(b.model, b.index, m.text, th, 'FALLBACK', encoded?.get(m.text.trim()));
    if (!r.knowledge) continue;
    const right = 'article' in m.expect && m.expect.article === r.knowledge.title;
    const missing = uncoveredWords(m.text, coveredText(texts.get(r.knowledge.title)!, vectors), vectors);
    console.log(
      [
        right ? 'RIGHT' : 'WRONG',
        m.group,
        r.knowledge.confidence.toFixed(2),
        JSON.stringify(m.text),
        '->',
        r.knowledge.title,
        '|',
        missing.map((x) => `${x.word}#${x.rank}~${x.closest}:${x.closeness.toFixed(2)}`).join(' '),
      ].join(' '),
    );
  }
}
