// Feature variants of the intent half of the calibration, fitted on the tuning tenants (article half as shipped) and measured on the report's sets: `V=base,mass npx tsx test/bench/answers/intent-features.ts` (LEX=1: words only)
import {
  articleProbability,
  choose,
  cosine,
  type IntentEvidence,
  intentTextsToEmbed,
  logit,
  sigmoid,
} from '#shared/nlu/index.ts';
import { helpDesks, intentSets, supportMix, type Scenario } from './data.ts';
import { tuningScenarios, fitLogistic, thresholdGrid, type Row } from './fit.ts';
import { buildScenario, observe, scenarioVectors, type Observed } from './inprocess.ts';
import { calibration, isRight, shares, pct, type Outcome, type Got } from './score.ts';

interface Extra {
  c: number[];
  ppi: number;
  knn: number[];
  n: number;
}
interface Obs {
  o: Observed;
  x: Extra;
  pa: number | null;
}
const tuning = tuningScenarios();
const evals = [
  ...intentSets(),
  supportMix(),
  ...helpDesks().map((s) => ({ ...s, messages: s.messages.filter((m) => m.heldOut), name: `desk ${s.name}` })),
];
const encAll = await scenarioVectors([...tuning, ...evals]);
const enc = (process.env.LEX === '1' ? undefined : encAll) as typeof encAll;
function run(s: Scenario): Obs[] {
  const b = buildScenario(s, enc);
  const phr = s.intents
    .flatMap((i) => intentTextsToEmbed(i))
    .map((t) => enc?.get(t))
    .filter((v): v is Float32Array => !!v);
  const ppi = s.intents.reduce((a, i) => a + i.trainingPhrases.length, 0) / Math.max(1, s.intents.length);
  return observe(b, s.messages, enc).map((o) => {
    const v = enc?.get(o.message.text.trim());
    const sims = v
      ? phr
          .map((p) => cosine(v, p))
          .sort((a, z) => z - a)
          .slice(0, 10)
      : [];
    const a = o.evidence.articles[0];
    return {
      o,
      x: { c: o.evidence.intents.map((i) => i.ranked.confidence), ppi, knn: sims, n: s.intents.length },
      pa: a ? articleProbability(a.evidence) : null,
    };
  });
}
const log = (m: string) => process.stderr.write(`[cal ${(performance.now() / 1000).toFixed(0)}s] ${m}\n`);
const T: Array<{ name: string; obs: Obs[] }> = tuning.map((s) => {
  log(s.name);
  return { name: s.name, obs: run(s) };
});
const E: Array<{ name: string; obs: Obs[] }> = evals.map((s) => {
  log(s.name);
  return { name: s.name, obs: run(s) };
});

type F = (e: IntentEvidence, x: Extra) => number[];
const base = (e: IntentEvidence) => [
  1,
  logit(e.confidence),
  e.margin,
  e.cover,
  e.similarity,
  Math.log(Math.max(5, e.candidates)),
  e.spelling,
  e.meaning ?? 0,
  e.meaningMargin ?? 0,
];
const mean = (a: number[], k: number) => a.slice(0, k).reduce((s, v) => s + v, 0) / Math.max(1, Math.min(k, a.length));
const variants: Record<string, F> = {
  base: (e) => base(e),
  mass: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.9999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
  ],
  ppi: (e, x) => [...base(e), Math.log(x.ppi)],
  knn5: (e, x) => [...base(e), mean(x.knn, 5)],
  knnall: (e, x) => [...base(e), x.knn[0] ?? 0, mean(x.knn, 5)],
  mass_ppi: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.9999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
    Math.log(x.ppi),
  ],
  mass_knn: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.9999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
    mean(x.knn, 5),
  ],
  all: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.9999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
    mean(x.knn, 5),
    Math.log(x.ppi),
  ],
  mass2: (e, x) => [...base(e), logit(Math.min(0.9999, (x.c[0] ?? 0) + (x.c[1] ?? 0)))],
  massraw: (e, x) => [...base(e), x.c.reduce((a, b) => a + b, 0)],
  masscap: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
  ],
  mass_knn1: (e, x) => [
    ...base(e),
    logit(
      Math.min(
        0.9999,
        x.c.reduce((a, b) => a + b, 0),
      ),
    ),
    x.knn[0] ?? 0,
  ],
  ppi_inter: (e, x) => [...base(e), Math.log(x.ppi), Math.log(x.ppi) * logit(e.confidence)],
};
const only = process.env.V?.split(',');
for (const [name, f] of Object.entries(variants)) {
  if (only && !only.includes(name)) continue;
  const rows: Row[] = [];
  for (const t of T) {
    const groups = new Map<string, number>();
    for (const { o } of t.obs) groups.set(o.message.group, (groups.get(o.message.group) ?? 0) + 1);
    for (const { o, x } of t.obs) {
      const i = o.evidence.intents[0];
      if (i)
        rows.push({ x: f(i.evidence, x), y: o.intentRight ? 1 : 0, w: 1 / groups.get(o.message.group)! / groups.size });
    }
  }
  let w = fitLogistic(rows);
  const prob = (ob: Obs, ww: number[]) => {
    const i = ob.o.evidence.intents[0];
    return i ? sigmoid(f(i.evidence, ob.x).reduce((s, v, k) => s + v * ww[k]!, 0)) : null;
  };
  const outcomesOf = (obs: Obs[], ww: number[], ti: number): Outcome[] =>
    obs.map((ob) => {
      const pi = prob(ob, ww);
      const pa = ob.pa;
      const o = ob.o;
      const choice = choose(pi, pa, { intent: ti, article: 0.5 });
      const got: Got =
        choice === 'intent'
          ? { intent: o.evidence.intents[0]!.ranked.intent }
          : choice === 'article'
            ? { article: o.evidence.articles[0]!.hit.articleId }
            : { fallback: true };
      const confidence = choice === 'fallback' ? Math.max(pi ?? 0, pa ?? 0) : choice === 'intent' ? pi! : pa!;
      return {
        group: o.message.group,
        right: isRight(o.message.expect, got),
        answered: choice !== 'fallback',
        confidence,
        bestRight: false,
        heldOut: o.message.heldOut,
      };
    });
  const best = (ww: number[], from: number) => {
    const tis = thresholdGrid(from, 0.8);
    const raw = tis.map((ti) => T.reduce((s, t) => s + shares(outcomesOf(t.obs, ww, ti)).mean, 0) / T.length);
    let b = { score: -1, ti: 0.5 };
    tis.forEach((ti, i) => {
      let s = 0,
        n = 0;
      for (let d = -1; d <= 1; d++)
        if (raw[i + d] !== undefined) {
          s += raw[i + d]!;
          n++;
        }
      if (s / n > b.score + 1e-9) b = { score: s / n, ti };
    });
    return b;
  };
  const b1 = best(w, 0.2);
  const given: Row[] = [];
  for (const t of T) {
    const out = outcomesOf(t.obs, w, b1.ti).filter(
      (x, k) =>
        x.answered &&
        prob(t.obs[k]!, w)! >= b1.ti &&
        (t.obs[k]!.pa === null || prob(t.obs[k]!, w)! >= t.obs[k]!.pa! || t.obs[k]!.pa! < 0.5),
    );
    for (const x of out) given.push({ x: [1, logit(x.confidence)], y: x.right ? 1 : 0, w: 1 / out.length });
  }
  const [a, bb] = fitLogistic(given) as [number, number];
  w = w.map((v, i) => bb * v + (i === 0 ? a : 0));
  const b2 = best(w, 0.3);
  w = w.map((v, i) => (i === 0 ? v + logit(0.46) - logit(b2.ti) : v));
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  const res: string[] = [];
  const desks: Outcome[] = [];
  for (const e of E) {
    const out = outcomesOf(e.obs, w, 0.46);
    const ece = calibration(out.filter((x) => x.answered)).ece.toFixed(3);
    if (e.name.startsWith('desk ')) {
      desks.push(...out);
      continue;
    }
    const sh = shares(out);
    const intentRows = e.obs.filter((ob) => 'intent' in ob.o.message.expect);
    const fb = out.filter((x) => x.group === 'intent' && !x.answered).length / Math.max(1, intentRows.length);
    res.push(
      `${e.name.slice(0, 14)}: ${pct(sh.intent)} fb ${pct(fb)}${sh.fallback !== undefined ? ` oos ${pct(sh.fallback)}` : ''}${sh.article !== undefined ? ` art ${pct(sh.article)} mean ${pct(sh.mean)}` : ''} ece ${ece}`,
    );
  }
  const dsh = shares(desks);
  res.push(
    `desks: ${pct(dsh.right)} (i ${pct(dsh.intent)} a ${pct(dsh.article)} f ${pct(dsh.fallback)}) ece ${calibration(desks.filter((x) => x.answered)).ece.toFixed(3)}`,
  );
  console.log(`== ${name}: tuning score ${b2.score.toFixed(4)} w ${JSON.stringify(w.map(r3))}\n  ${res.join('\n  ')}`);
}
