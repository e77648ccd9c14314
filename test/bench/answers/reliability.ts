// Reliability of the intent probabilities on few-phrase tenants (CURVE=1: right share by fallback share per score; RERANK=1: top three re-ranked by the policy): `npx tsx test/bench/answers/reliability.ts`
import { intentSets } from './data.ts';
import { tuningScenarios } from './fit.ts';
import { buildScenario, observe, scenarioVectors } from './inprocess.ts';
import { intentProbability } from '#shared/nlu/index.ts';
import { calibration } from './score.ts';
const which = (process.env.SETS ?? 'BANKING77 10,tuning mix 4,tuning mix 6,tuning mix 5,tuning mix 7').split(',');
const scen = [...intentSets(), ...tuningScenarios()].filter((s) => which.some((w) => s.name.startsWith(w)));
const enc = await scenarioVectors(scen);
for (const s of scen) {
  const obs = observe(buildScenario(s, enc), s.messages, enc).filter((o) => 'intent' in o.message.expect);
  const pairs = obs.map((o) => ({
    confidence: o.evidence.intents[0] ? intentProbability(o.evidence.intents[0].evidence) : 0,
    right: o.intentRight,
  }));
  const c = calibration(pairs);
  const top1 = pairs.filter((p) => p.right).length / pairs.length;
  const below = pairs.filter((p) => p.confidence < 0.46);
  console.log(
    `${s.name}: n ${pairs.length} top1 ${(100 * top1).toFixed(1)} fallback ${((100 * below.length) / pairs.length).toFixed(1)} right-among-fallback ${((100 * below.filter((p) => p.right).length) / below.length).toFixed(1)} ECE(all in-scope) ${c.ece.toFixed(3)}`,
  );
  console.log(
    c.table
      .filter((t) => t.n)
      .map((t) => `${t.from.toFixed(1)}:${t.n}:${t.confidence.toFixed(2)}/${t.accuracy.toFixed(2)}`)
      .join(' '),
  );
}
// right share when the lowest `f` of messages by each score fall back
if (process.env.CURVE)
  for (const s of scen) {
    const obs = observe(buildScenario(s, enc), s.messages, enc).filter((o) => 'intent' in o.message.expect);
    const scores: Record<string, (o: (typeof obs)[number]) => number> = {
      policy: (o) => intentProbability(o.evidence.intents[0]!.evidence),
      conf: (o) => o.evidence.intents[0]!.evidence.confidence,
      margin: (o) => o.evidence.intents[0]!.evidence.margin,
      meaning: (o) => o.evidence.intents[0]!.evidence.meaning ?? 0,
      mmargin: (o) => o.evidence.intents[0]!.evidence.meaningMargin ?? 0,
    };
    for (const [k, f] of Object.entries(scores)) {
      const sorted = obs.map((o) => ({ s: f(o), r: o.intentRight })).sort((a, b) => a.s - b.s);
      const at = (q: number) => {
        const cut = Math.round(q * sorted.length);
        return ((100 * sorted.slice(cut).filter((x) => x.r).length) / sorted.length).toFixed(1);
      };
      console.log(
        `${s.name} ${k}: right at fallback 8/12/16/20 %: ${at(0.08)} / ${at(0.12)} / ${at(0.16)} / ${at(0.2)}`,
      );
    }
  }
if (process.env.RERANK)
  for (const s of scen) {
    const obs = observe(buildScenario(s, enc), s.messages, enc).filter((o) => 'intent' in o.message.expect);
    let a = 0,
      b = 0;
    for (const o of obs) {
      const want = (o.message.expect as { intent: string }).intent;
      const c = o.evidence.intents;
      if (c[0]?.ranked.intent === want) a++;
      const best = c.reduce((x, y) => (intentProbability(y.evidence) > intentProbability(x.evidence) ? y : x), c[0]!);
      if (best?.ranked.intent === want) b++;
    }
    console.log(
      `${s.name}: top-1 ${((100 * a) / obs.length).toFixed(2)}, re-ranked by the policy ${((100 * b) / obs.length).toFixed(2)}`,
    );
  }
