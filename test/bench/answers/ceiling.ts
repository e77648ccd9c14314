// How far the answer policy's evidence can go, whatever the thresholds: `npx tsx
// test/bench/answers/ceiling.ts`, in process. For the support mix and for the help desks' held-out
// messages it prints the figures at the default thresholds, at the best pair of thresholds chosen on
// those very messages (a ceiling, never a choice: the defaults come from tuning data only, see
// fit.ts), at the best pair that keeps every group at its target's floor (or "none"), and with a
// perfect acceptance, one that answers with every right first candidate and falls back on every other
// (what the ranking alone allows).
import { CALIBRATION, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { helpDesks, supportMix } from './data.ts';
import { decided, scored, thresholdGrid } from './fit.ts';
import { buildScenario, observe, type Observed } from './inprocess.ts';
import { pct, shares, type Outcome } from './score.ts';

const line = (out: Parameters<typeof shares>[0]) => {
  const s = shares(out);
  return `intent ${pct(s.intent ?? 0)} article ${pct(s.article ?? 0)} fallback ${pct(s.fallback ?? 0)} mean ${pct(s.mean)} right ${pct(s.right)}`;
};

function report(name: string, observed: Observed[], measure: 'mean' | 'right', floor: number) {
  const messages = scored(observed, CALIBRATION);
  const at = (intent: number, article: number) => decided(messages, { intent, article });
  console.log(
    `${name}, defaults ${DEFAULT_INTENT_THRESHOLD} / ${DEFAULT_ARTICLE_THRESHOLD}: ${line(at(DEFAULT_INTENT_THRESHOLD, DEFAULT_ARTICLE_THRESHOLD))}`,
  );
  type Pick = { score: number; th: string; out: Outcome[] };
  let best: Pick | null = null;
  let bestAtFloor: Pick | null = null;
  for (const i of thresholdGrid(0.2, 0.8)) {
    for (const a of thresholdGrid(0.2, 0.8)) {
      const out = at(i, a);
      const s = shares(out);
      const pick = { score: s[measure], th: `${i} / ${a}`, out };
      if (!best || pick.score > best.score) best = pick;
      const atFloor = [s.intent, s.article, s.fallback].every((x) => x === undefined || x >= floor);
      if (atFloor && (!bestAtFloor || pick.score > bestAtFloor.score)) bestAtFloor = pick;
    }
  }
  console.log(`${name}, best thresholds on these messages (${best!.th}): ${line(best!.out)}`);
  console.log(
    `${name}, best with every group at ${pct(floor)} % or more: ${bestAtFloor ? `(${bestAtFloor.th}) ${line(bestAtFloor.out)}` : 'none'}`,
  );
  const perfect = observed.map((o) => ({
    group: o.message.group,
    right: o.message.group === 'fallback' || o.intentRight || o.articleRight,
  }));
  console.log(`${name}, a perfect acceptance (the ranking's ceiling): ${line(perfect)}`);
}

const mix = supportMix();
report('support mix', observe(buildScenario(mix), mix.messages), 'mean', 0.75);
const held = helpDesks().flatMap((s) => observe(buildScenario(s), s.messages).filter((o) => o.message.heldOut));
report('help desks, all held out', held, 'right', 0.8);
