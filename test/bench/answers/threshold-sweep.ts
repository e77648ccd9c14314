// One article threshold for every knowledge base (idea (c) of docs/decisions/008-answer-policy-coverage.md):
// the tuning parts only, with the encoder's evidence, each figure at article thresholds from 0.5 up.
// `npx tsx test/bench/answers/threshold-sweep.ts`
import { DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { helpDesks, kbAbstention, supportMix, type Scenario } from './data.ts';
import { decided, scored } from './fit.ts';
import { buildScenario, observe, scenarioVectors } from './inprocess.ts';
import type { Outcome } from './score.ts';

const kb = kbAbstention('tuning', [false]);
const desks = helpDesks().map((s) => ({ ...s, messages: s.messages.filter((m) => m.heldOut && !m.lockbox) }));
const mix = supportMix('tuning');
const all: Scenario[] = [...kb, ...desks, mix];
const encoded = await scenarioVectors(all);
const scoredOf = (ss: Scenario[]) => ss.flatMap((s) => scored(observe(buildScenario(s, encoded), s.messages, encoded)));
const sets = { stackfaq: scoredOf(kb), desks: scoredOf(desks), mix: scoredOf([mix]) };
const share = (o: Outcome[], f: (x: Outcome) => boolean) =>
  o.length ? +((100 * o.filter(f).length) / o.length).toFixed(1) : NaN;
const rows: Record<string, Record<string, number>> = {};
for (const article of [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]) {
  const th = { intent: DEFAULT_INTENT_THRESHOLD, article };
  const [f, d, m] = [decided(sets.stackfaq, th), decided(sets.desks, th), decided(sets.mix, th)];
  const g = (o: Outcome[], k: Outcome['group']) => o.filter((x) => x.group === k);
  rows[article] = {
    'faq in-KB right': share(g(f, 'article'), (x) => x.right),
    'faq out-of-KB answered': share(g(f, 'fallback'), (x) => x.answered),
    'desks right': share(d, (x) => x.right),
    'desks article': share(g(d, 'article'), (x) => x.right),
    'desks fallback': share(g(d, 'fallback'), (x) => x.right),
    'mix mean': +(
      (share(g(m, 'intent'), (x) => x.right) +
        share(g(m, 'article'), (x) => x.right) +
        share(g(m, 'fallback'), (x) => x.right)) /
      3
    ).toFixed(1),
    'mix article': share(g(m, 'article'), (x) => x.right),
  };
}
console.table(rows);
