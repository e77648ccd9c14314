// Quick in-process look at the help desks (tuning messages by default; HELD=1 adds the held-out summary; V=1 lists the tuning misses, V=2 with HELD=1 the held-out ones too).
import { CALIBRATION, DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { helpDesks, supportMix, tuningMix } from './data.ts';
import { outcomes } from './fit.ts';
import { buildScenario, observe } from './inprocess.ts';
import { calibration, pct, shares } from './score.ts';

// FIT=file: the weights and thresholds printed by fit.ts instead of the committed ones; TI=x: that intent threshold.
import { readFileSync } from 'node:fs';
const fitted = process.env.FIT ? readFileSync(process.env.FIT, 'utf8').split('\n') : null;
const W = fitted ? JSON.parse(fitted.findLast((l) => l.startsWith('{"intent"'))!) : CALIBRATION; // the mapped constants, printed last
const th = fitted
  ? JSON.parse(fitted.find((l) => l.startsWith('thresholds'))!.slice(11))
  : { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
if (process.env.TI) th.intent = Number(process.env.TI);
const verbose = process.env.V === '1' || process.env.V === '2';
let rank1 = 0,
  arts = 0;
const all: ReturnType<typeof outcomes> = [];
const thirds: ReturnType<typeof outcomes> = [];
const whole: ReturnType<typeof outcomes> = [];
for (const s of helpDesks()) {
  const b = buildScenario(s);
  const obs = observe(
    b,
    s.messages.filter((m) => process.env.HELD === '1' || !m.heldOut),
  );
  const out = outcomes(obs, W, th);
  all.push(...out);
  (s.unseen ? whole : thirds).push(...out.filter((o) => o.heldOut));
  const tune = shares(out.filter((o) => !o.heldOut));
  const held = out.filter((o) => o.heldOut);
  console.log(
    `${s.name} tuning: intent ${pct(tune.intent)} article ${pct(tune.article)} fallback ${pct(tune.fallback)} mean ${pct(tune.mean)}${held.length ? ` | held-out right ${pct(shares(held).right)}` : ''}`,
  );
  obs.forEach((o, k) => {
    if (o.message.heldOut && process.env.V !== '2') return;
    if ('article' in o.message.expect) {
      arts++;
      if (o.articleRight) rank1++;
    }
    if (verbose && !out[k]!.right) {
      const i = o.evidence.intents[0];
      const a = o.evidence.articles[0];
      console.log(
        `  ✗ ${JSON.stringify(o.message.expect)} "${o.message.text}" -> i=${i?.ranked.intent}:${i?.ranked.confidence.toFixed(2)} a=${a?.hit.articleId}:${a?.hit.confidence.toFixed(2)} conf=${out[k]!.confidence.toFixed(2)}`,
      );
    }
  });
}
const t = all.filter((o) => !o.heldOut);
const st = shares(t);
console.log(
  `ALL tuning: intent ${pct(st.intent)} article ${pct(st.article)} fallback ${pct(st.fallback)} mean ${pct(st.mean)} right ${pct(st.right)} rank1 articles ${rank1}/${arts} ECE ${calibration(t.map((x) => ({ confidence: x.confidence, right: x.bestRight }))).ece.toFixed(3)}`,
);
if (process.env.HELD === '1') {
  const unseen = helpDesks()
    .filter((s) => s.unseen)
    .map((s) => s.name);
  for (const [label, h] of [
    ['thirds', thirds],
    ['whole', whole],
  ] as const) {
    console.log(
      `HELD ${label}: right ${pct(shares(h).right)} (n ${h.length}; businesses held out whole: ${unseen.join(', ')})`,
    );
  }
  const h = all.filter((o) => o.heldOut);
  const sh = shares(h);
  console.log(
    `ALL HELD: intent ${pct(sh.intent)} article ${pct(sh.article)} fallback ${pct(sh.fallback)} right ${pct(sh.right)} ECE ${calibration(h.map((x) => ({ confidence: x.confidence, right: x.bestRight }))).ece.toFixed(3)}`,
  );
}
if (process.env.MIX === '1') {
  for (const s of [supportMix(), tuningMix(1, 150)]) {
    const out = outcomes(observe(buildScenario(s), s.messages), W, th);
    const sh = shares(out);
    console.log(
      `${s.name}: intent ${pct(sh.intent)} article ${pct(sh.article)} fallback ${pct(sh.fallback)} mean ${pct(sh.mean)} ECE ${calibration(out.map((x) => ({ confidence: x.confidence, right: x.bestRight }))).ece.toFixed(3)}`,
    );
  }
}
