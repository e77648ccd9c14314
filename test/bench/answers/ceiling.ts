// How far the answer policy's evidence can go, whatever the thresholds: `npx tsx
// test/bench/answers/ceiling.ts`, in process. For the support mix and for the help desks' held-out
// messages it prints the figures at the default thresholds, at the best pair of thresholds chosen on
// those very messages (a ceiling, never a choice: the defaults come from tuning data only, see
// fit.ts), at the best pair that keeps every group at its target's floor (or "none"), and with a
// perfect acceptance, one that answers with every right first candidate and falls back on every other
// (what the ranking alone allows).
import { CALIBRATION, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/answer-policy.ts';
import { helpDesks, supportMix } from './data.ts';
import { outcomes } from './fit.ts';
import { buildScenario, observe, type Observed } from './inprocess.ts';
import { pct, shares, type Outcome } from './score.ts';

const right = (out: Outcome[]) => out.filter((o) => o.right).length / out.length;
const line = (out: Outcome[]) => {
  const s = shares(out);
  return `intent ${pct(s.intent ?? 0)} article ${pct(s.article ?? 0)} fallback ${pct(s.fallback ?? 0)} mean ${pct(s.mean)} right ${pct(right(out))}`;
};

function report(name: string, observed: Observed[], measure: (out: Outcome[]) => number, floor: number) {
  const at = (intent: number, article: number) => outcomes(observed, CALIBRATION, { intent, article });
  console.log(`${name}, defaults ${DEFAULT_INTENT_THRESHOLD} / ${DEFAULT_ARTICLE_THRESHOLD}: ${line(at(DEFAULT_INTENT_THRESHOLD, DEFAULT_ARTICLE_THRESHOLD))}`);
  type Pick = { score: number; th: string; out: Outcome[] };
  let best: Pick | null = null;
  let bestAtFloor: Pick | null = null;
  for (let i = 10; i <= 40; i++) {
    for (let a = 10; a <= 40; a++) {
      const out = at(i / 50, a / 50);
      const score = measure(out);
      const th = `${i / 50} / ${a / 50}`;
      if (!best || score > best.score) best = { score, th, out };
      const s = shares(out);
      const atFloor = [s.intent, s.article, s.fallback].every((x) => x === undefined || x >= floor);
      if (atFloor && (!bestAtFloor || score > bestAtFloor.score)) bestAtFloor = { score, th, out };
    }
  }
  console.log(`${name}, best thresholds on these messages (${best!.th}): ${line(best!.out)}`);
  console.log(`${name}, best with every group at ${pct(floor)} % or more: ${bestAtFloor ? `(${bestAtFloor.th}) ${line(bestAtFloor.out)}` : 'none'}`);
  const perfect = observed.map((o) => ({ group: o.message.group, right: o.message.group === 'fallback' || o.intentRight || o.articleRight }) as Outcome);
  console.log(`${name}, a perfect acceptance (the ranking's ceiling): ${line(perfect)}`);
}

const mix = supportMix();
report('support mix', observe(buildScenario(mix), mix.messages), (out) => shares(out).mean, 0.75);
const held = helpDesks().flatMap((s) => observe(buildScenario(s), s.messages).filter((o) => o.message.heldOut));
report('help desks, all held out', held, right, 0.8);
