// What the Unanswered screen's suggestion floor is measured on: `npx tsx test/bench/answers/suggestions.ts`.
// Each help desk (test/fixtures/helpdesks) built in process with its sentence vectors, as the chat
// path builds it; every message weighed as the Unanswered view weighs a group of one (the calibrated
// probability of the top intent and of the top article, the better kept) and with the encoder's
// closeness of the message to that candidate. Printed: at each floor on that closeness, the share
// of out-of-scope messages (nothing should answer them) still given a suggestion, and the share of
// in-scope messages given the right one. docs/API.md (Teaching) keeps the figures.
import { articleProbability, intentProbability } from '#shared/nlu/index.ts';
import { SUGGESTION_MIN } from '#shared/domain/assistant/unanswered.ts';
import { helpDesks } from './data.ts';
import { buildScenario, observe, scenarioVectors } from './inprocess.ts';

const scenarios = helpDesks();
const vectors = await scenarioVectors(scenarios);
const rows: Array<{ inScope: boolean; right: boolean; p: number; closeness: number }> = [];
for (const s of scenarios) {
  const built = buildScenario(s, vectors);
  for (const o of observe(built, s.messages, vectors)) {
    const i = o.evidence.intents[0];
    const a = o.evidence.articles[0];
    const ip = i ? intentProbability(i.evidence) : -1;
    const ap = a ? articleProbability(a.evidence) : -1;
    const byArticle = ap > ip;
    const e = o.message.expect;
    rows.push({
      inScope: !('fallback' in e),
      right: byArticle ? o.articleRight : o.intentRight,
      p: Math.max(ip, ap),
      closeness: (byArticle ? a?.evidence.features.meaning : i?.evidence.meaning) ?? Number.NaN,
    });
  }
}
const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`;
const out = rows.filter((r) => !r.inScope);
const inn = rows.filter((r) => r.inScope);
console.log(
  `help desks: ${scenarios.length}, messages ${rows.length} (in scope ${inn.length}, out of scope ${out.length})`,
);
console.log(`probability floor ${SUGGESTION_MIN}, then closeness floor:`);
console.log('closeness | out of scope suggested | in scope right suggested | in scope wrong suggested');
for (const floor of [-1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]) {
  const shown = (r: (typeof rows)[number]) => r.p >= SUGGESTION_MIN && !(r.closeness < floor);
  console.log(
    `${floor < 0 ? 'none' : floor.toFixed(2)} | ${pct(out.filter(shown).length, out.length)} | ${pct(
      inn.filter((r) => shown(r) && r.right).length,
      inn.length,
    )} | ${pct(inn.filter((r) => shown(r) && !r.right).length, inn.length)}`,
  );
}
console.log('probability floor alone (no closeness floor):');
console.log('probability | out of scope suggested | in scope right suggested | in scope wrong suggested');
for (const floor of [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]) {
  const shown = (r: (typeof rows)[number]) => r.p >= floor;
  console.log(
    `${floor.toFixed(2)} | ${pct(out.filter(shown).length, out.length)} | ${pct(
      inn.filter((r) => shown(r) && r.right).length,
      inn.length,
    )} | ${pct(inn.filter((r) => shown(r) && !r.right).length, inn.length)}`,
  );
}
