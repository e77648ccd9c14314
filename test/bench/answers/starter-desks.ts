// Exploration: the help desks' tuning messages (outside their lockbox) on tenants as they really
// start: the starter intents, flagged as starter content, in place of the desk's own intents, beside
// the desk's articles; answered in process by the NLU with the service's rules (starter content gives
// way to articles; the hours intent answers only hours), with the encoder. Counts, per kind of
// expected answer: the right article, the fallback (or a hand-over) where nothing should answer, and
// the starter intents that share a desk intent's name. Every desk has the same hours set (the hours
// intent answers from them). Not the chat's whole path: no `none` examples, no pending questions.
// `npx tsx test/bench/answers/starter-desks.ts` (SHOW=1 lists the misses; LOCKBOX=1 the lockbox's figures). Used in
// docs/decisions/008-answer-policy-coverage.md (d).
import { settingsValues } from '#shared/domain/assistant/placeholders.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { answer, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { helpDesks, type ScenarioIntent } from './data.ts';
import { buildScenario, scenarioVectors } from './inprocess.ts';

// Weekday hours, as a team sets them in its settings: what the hours intent's placeholders read.
const values = settingsValues(
  {
    config: {
      businessHours: {
        timezone: 'Europe/London',
        weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:30']]])),
      },
    },
  },
  new Date('2026-11-25T12:00:00Z'),
);
const thresholds = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
const intents: ScenarioIntent[] = starterIntents.map((i) => ({ ...i, starter: true }));
const starterNames = new Set(intents.map((i) => i.name));
// LOCKBOX=1: the desks' lockbox messages instead, read only to check a change chosen on the tuning ones.
const lockbox = process.env.LOCKBOX === '1';
const desks = helpDesks().map((s) => ({ ...s, intents, messages: s.messages.filter((m) => !!m.lockbox === lockbox) }));
const vectors = await scenarioVectors(desks);

const tally = new Map<string, { right: number; all: number }>();
const misses: string[] = [];
for (const s of desks) {
  const { model, index } = buildScenario(s, vectors);
  for (const m of s.messages) {
    const r = answer(model, index, m.text, thresholds, 'FALLBACK', vectors.get(m.text.trim()), values);
    const got = r.knowledge
      ? `article:${r.knowledge.title}`
      : r.nlu.intent
        ? `intent:${r.nlu.intent.name}`
        : 'fallback';
    const e = m.expect;
    let kind: string;
    let right: boolean;
    if ('article' in e) [kind, right] = ['article', got === `article:${e.article}`];
    else if ('fallback' in e) [kind, right] = ['fallback', got === 'fallback' || got === 'intent:human_agent'];
    else if ('intent' in e && starterNames.has(e.intent))
      [kind, right] = [`intent ${e.intent}`, got === `intent:${e.intent}`];
    else continue;
    const t = tally.get(kind) ?? { right: 0, all: 0 };
    tally.set(kind, { right: t.right + Number(right), all: t.all + 1 });
    if (!right) misses.push(`${kind} | ${JSON.stringify(m.text)} -> ${got}`);
  }
}
for (const [kind, t] of [...tally].sort())
  console.log(`${kind.padEnd(24)} ${((100 * t.right) / t.all).toFixed(1)} % (${t.right}/${t.all})`);
if (process.env.SHOW === '1') for (const m of misses) console.log(m);
