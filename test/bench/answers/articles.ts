// Article acceptance, in process with the sentence encoder's evidence: what the answer policy's
// article model separates, on tuning data only. `npx tsx test/bench/answers/articles.ts`
// - the tuning tenants of fit.ts (help desks' tuning messages, the same cut to 4 articles, the
//   CLINC150 / StackFAQ tuning mixes);
// - bench:kb's abstention protocol on the StackFAQ development split (each half of the threads
//   left out in turn, without and with 3 questions), as four article-only tenants.
// For each candidate feature set it fits the article model (intents keep the shipped one), picks
// the article threshold by fit.ts's rule and reports the help desks' tuning figures and bench:kb's
// in-KB right / left-out answered at that threshold (both variants pooled), and the help desks'
// figure at the threshold where bench:kb's left-out answered reach 15 %. The help desks' held-out
// messages are never read. The evidence is cached in bench-results/article-probe.json (FRESH=1
// observes again, after a change to the knowledge index); SETS=a,b only those feature sets; KB=x
// the bench:kb tenants in the fit at weight x each (0: not at all); ONLY=desk,desk4 fit on those
// kinds of tenant only; W=1 prints the weights. The results are in docs/decisions/005-sentence-encoder-evidence.md.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ArticleEvidence,
  choose,
  DEFAULT_INTENT_THRESHOLD,
  intentProbability,
  logit,
  sigmoid,
} from '#shared/nlu/index.ts';
import { repoRoot } from '../kb/data.ts';
import { kbAbstention } from './data.ts';
import { fitLogistic, tuningScenarios, thresholdGrid, type Row } from './fit.ts';
import { buildScenario, observe, scenarioVectors, type Observed } from './inprocess.ts';
import { calibration, isRight, pct, shares, type Got, type Outcome } from './score.ts';

interface Tenant {
  scenario: string;
  kind: 'desk' | 'desk4' | 'mix' | 'kb';
  observed: Observed[];
}

const CACHE = resolve(repoRoot, 'bench-results/article-probe.json');

async function observeAll(): Promise<Tenant[]> {
  if (process.env.FRESH !== '1' && existsSync(CACHE)) return JSON.parse(readFileSync(CACHE, 'utf8')) as Tenant[];
  const scenarios = [...tuningScenarios(), ...kbAbstention()];
  const encoded = await scenarioVectors(scenarios);
  const tenants = scenarios.map((s) => {
    process.stderr.write(`[articles] ${s.name}\n`);
    const kind: Tenant['kind'] = s.name.startsWith('bench:kb')
      ? 'kb'
      : s.name.startsWith('tuning mix')
        ? 'mix'
        : s.name.includes('(4 articles)')
          ? 'desk4'
          : 'desk';
    // Only what the article model needs (the evidence of the best intent and the best article).
    const observed = observe(buildScenario(s, encoded), s.messages, encoded).map((o) => ({
      ...o,
      evidence: {
        intents: o.evidence.intents.slice(0, 1),
        articles: o.evidence.articles
          .slice(0, 1)
          .map((a) => ({ hit: { articleId: a.hit.articleId }, evidence: a.evidence })),
      },
    })) as unknown as Observed[];
    return { scenario: s.name, kind, observed };
  });
  mkdirSync(resolve(repoRoot, 'bench-results'), { recursive: true });
  writeFileSync(CACHE, JSON.stringify(tenants));
  return tenants;
}

type FeatureSet = (e: ArticleEvidence, text: string) => number[];

const MIN_ARTICLES = 4;
const lexical = (e: ArticleEvidence) => {
  const f = e.features;
  return [
    1,
    logit(e.confidence),
    e.margin,
    f.key,
    f.passage,
    f.similarity,
    f.unseen,
    Math.log(Math.max(MIN_ARTICLES, e.candidates)),
    f.semantic,
    f.spelling,
  ];
};
const m = (e: ArticleEvidence) => e.features.meaning ?? 0;
export const FEATURE_SETS: Record<string, FeatureSet> = {
  lexical,
  gap: (e) => [...lexical(e), m(e), e.features.meaningGap ?? 0],
  lift: (e) => [...lexical(e), m(e), e.features.meaningGap ?? 0, e.features.meaningLift ?? 0],
  crowd: (e) => [
    ...lexical(e),
    m(e),
    e.features.meaningGap ?? 0,
    e.features.meaningLift ?? 0,
    e.features.meaningCrowd ?? 0.5,
  ],
  crowdm: (e) => [
    ...lexical(e),
    m(e),
    e.features.meaningGap ?? 0,
    e.features.meaningLift ?? 0,
    m(e) - (e.features.meaningCrowd ?? 0.5),
  ],
  len: (e, t) => [
    ...lexical(e),
    m(e),
    e.features.meaningGap ?? 0,
    e.features.meaningLift ?? 0,
    Math.log(t.split(/\s+/).length),
  ],
  crowdlen: (e, t) => [
    ...lexical(e),
    m(e),
    e.features.meaningGap ?? 0,
    e.features.meaningLift ?? 0,
    e.features.meaningCrowd ?? 0.5,
    Math.log(t.split(/\s+/).length),
  ],
  inter: (e) => {
    const c = (e.features.meaningCrowd ?? 0.6) - 0.6;
    const base = [...lexical(e), m(e), e.features.meaningGap ?? 0, e.features.meaningLift ?? 0, c];
    return [
      ...base,
      c * logit(e.confidence),
      c * m(e),
      c * (e.features.meaningGap ?? 0),
      c * e.features.key,
      c * e.features.passage,
    ];
  },
  inter2: (e) => {
    const c = (e.features.meaningCrowd ?? 0.6) - 0.6;
    const base = [...lexical(e), m(e), e.features.meaningGap ?? 0, e.features.meaningLift ?? 0, c];
    return [...base, c * m(e), c * (e.features.meaningGap ?? 0)];
  },
  kinds: (e) => {
    const f = e.features;
    return [
      ...lexical(e),
      m(e),
      f.meaningGap ?? 0,
      f.meaningLift ?? 0,
      f.meaningKey ?? m(e),
      f.meaningPassage ?? m(e),
      f.meaningKeyGap ?? 0,
      f.meaningPassageGap ?? 0,
    ];
  },
  kindsc: (e) => {
    const f = e.features;
    return [
      ...lexical(e),
      m(e),
      f.meaningGap ?? 0,
      f.meaningLift ?? 0,
      f.meaningKey ?? m(e),
      f.meaningPassage ?? m(e),
      f.meaningKeyGap ?? 0,
      f.meaningPassageGap ?? 0,
      f.meaningCrowd ?? 0.6,
    ];
  },
  switch: (e) => {
    const f = e.features;
    const base = [
      ...lexical(e),
      m(e),
      f.meaningGap ?? 0,
      f.meaningLift ?? 0,
      f.meaningKey ?? m(e),
      f.meaningPassage ?? m(e),
      f.meaningKeyGap ?? 0,
      f.meaningPassageGap ?? 0,
    ];
    const sw = 1 / (1 + Math.exp(-((f.meaningCrowd ?? 0.65) - 0.675) / 0.01));
    return [...base, ...base.map((x) => x * sw)];
  },
  switchq: (e) => {
    const f = e.features;
    const base = [
      ...lexical(e),
      m(e),
      f.meaningGap ?? 0,
      f.meaningLift ?? 0,
      f.meaningKey ?? m(e),
      f.meaningPassage ?? m(e),
      f.meaningKeyGap ?? 0,
      f.meaningPassageGap ?? 0,
      Math.log(f.meaningKeys ?? 1),
    ];
    const sw = 1 / (1 + Math.exp(-((f.meaningCrowd ?? 0.65) - 0.675) / 0.01));
    return [...base, ...base.map((x) => x * sw)];
  },
  parts: (e) => [
    ...lexical(e),
    m(e),
    e.features.meaningGap ?? 0,
    e.features.meaningLift ?? 0,
    e.features.meaningKey ?? m(e),
    e.features.meaningPassage ?? m(e),
  ],
};

/** Intent probabilities are the shipped model's; the article's come from `w` over `fs`. */
function decide(observed: Observed[], fs: FeatureSet, w: number[], ta: number): Outcome[] {
  return observed.map((o) => {
    const i = o.evidence.intents[0];
    const a = o.evidence.articles[0];
    const pi = i ? intentProbability(i.evidence) : null;
    const pa = a ? sigmoid(fs(a.evidence, o.message.text).reduce((s, x, k) => s + x * w[k]!, 0)) : null;
    const th = { intent: DEFAULT_INTENT_THRESHOLD, article: ta };
    const choice = choose(pi, pa, th);
    const got: Got =
      choice === 'intent'
        ? { intent: i!.ranked.intent }
        : choice === 'article'
          ? { article: a!.hit.articleId }
          : { fallback: true };
    const best = choose(pi, pa, { intent: 0, article: 0 });
    const bestRight = best === 'intent' ? o.intentRight : best === 'article' ? o.articleRight : false;
    const confidence = choice === 'fallback' ? Math.max(pi ?? 0, pa ?? 0) : choice === 'intent' ? pi! : pa!;
    return {
      group: o.message.group,
      right: isRight(o.message.expect, got),
      answered: choice !== 'fallback',
      confidence,
      bestRight,
      heldOut: o.message.heldOut,
    };
  });
}

function rows(tenants: Tenant[], fs: FeatureSet, weightOf: (t: Tenant) => number): Row[] {
  const out: Row[] = [];
  for (const t of tenants) {
    const groups = new Map<string, number>();
    for (const o of t.observed) groups.set(o.message.group, (groups.get(o.message.group) ?? 0) + 1);
    for (const o of t.observed) {
      const a = o.evidence.articles[0];
      if (a)
        out.push({
          x: fs(a.evidence, o.message.text),
          y: o.articleRight ? 1 : 0,
          w: weightOf(t) / groups.get(o.message.group)! / groups.size,
        });
    }
  }
  return out;
}

const kbFigures = (tenants: Tenant[], fs: FeatureSet, w: number[], ta: number) => {
  const out = tenants.filter((t) => t.kind === 'kb').flatMap((t) => decide(t.observed, fs, w, ta));
  const s = shares(out);
  return { inKbRight: s.article ?? 0, leftOutAnswered: 1 - (s.fallback ?? 0) };
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const tenants = await observeAll();
  // KB=x: the bench:kb tenants join the fit at weight x each (0: as fit.ts, not at all).
  const kbWeight = Number(process.env.KB ?? 0);
  // ONLY=desk,desk4: fit on those kinds of tenant only (experiments).
  const kinds = process.env.ONLY?.split(',');
  const fitted = tenants.filter((t) => (t.kind !== 'kb' || kbWeight > 0) && (!kinds || kinds.includes(t.kind)));
  const only = process.env.SETS?.split(',');
  for (const [name, fs] of Object.entries(FEATURE_SETS)) {
    if (only && !only.includes(name)) continue;
    const w = fitLogistic(rows(fitted, fs, (t) => (t.kind === 'kb' ? kbWeight : 1)));
    // fit.ts's rule for the article threshold (intent at its default): the best mean of the tuning
    // tenants' group means, averaged with the grid's neighbours.
    const grid = thresholdGrid(0.2, 0.8);
    const raw = grid.map(
      (ta) => fitted.reduce((s, t) => s + shares(decide(t.observed, fs, w, ta)).mean, 0) / fitted.length,
    );
    const smooth = raw.map((_, k) =>
      [-1, 0, 1]
        .map((d) => raw[k + d])
        .filter((x): x is number => x !== undefined)
        .reduce((a, b, _i, xs) => a + b / xs.length, 0),
    );
    const best = smooth.indexOf(Math.max(...smooth));
    const ta = grid[best]!;
    const desks = tenants.filter((t) => t.kind === 'desk').flatMap((t) => decide(t.observed, fs, w, ta));
    const d = shares(desks);
    const kb = kbFigures(tenants, fs, w, ta);
    // The lowest threshold at which bench:kb answers at most 15 % of its left-out messages.
    const kb15 = grid.find((x) => kbFigures(tenants, fs, w, x).leftOutAnswered <= 0.15) ?? 1;
    const atKb15 = tenants.filter((t) => t.kind === 'desk').flatMap((t) => decide(t.observed, fs, w, kb15));
    const mixes = tenants.filter((t) => t.kind === 'mix').map((t) => shares(decide(t.observed, fs, w, ta)).mean);
    const ece = calibration(
      desks.filter((x) => x.answered).map((x) => ({ confidence: x.confidence, right: x.right })),
    ).ece;
    console.log(
      `${name.padEnd(8)} th ${ta.toFixed(2)} | desks right ${pct(d.right)} (intent ${pct(d.intent)} article ${pct(d.article)} fallback ${pct(d.fallback)}) ECE ${ece.toFixed(3)} | mixes mean ${pct(mixes.reduce((a, b) => a + b, 0) / mixes.length)} | kb in-KB right ${pct(kb.inKbRight)} left-out ${pct(kb.leftOutAnswered)} | kb 15 % at ${kb15.toFixed(2)}: desks right ${pct(shares(atKb15).right)} article ${pct(shares(atKb15).article)} kb right ${pct(kbFigures(tenants, fs, w, kb15).inKbRight)}`,
    );
    if (process.env.W === '1') console.log(`  ${JSON.stringify(w)}`);
  }
}
