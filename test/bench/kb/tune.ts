// Tuning in process, in about a second per configuration: the same halves, folds and threshold
// rule as test/bench/kb.ts, the engine called directly, no MiniSearch, no speed run.
//   CONFIGS='[{},{"weights":{"questions":0.8}}]' npx tsx test/bench/kb/tune.ts   (TH=0.3 fixes the threshold)
// Each line: hit@1, hit@1 with 3 questions | in-KB right / wrong / left-out answered, and the same with questions.
import { buildKnowledgeIndex, prepareArticle, type StoredArticle } from '#shared/nlu/index.ts';
import { loadStackFaq, type Thread } from './data.ts';

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const threads = loadStackFaq();
const half = (t: Thread) => (fnv(t.question) % 2 === 0 ? 'tune' : 'report');
// A high bit: FNV-1a's low bit is the same for any prefix (see test/bench/kb.ts).
const fold = (t: Thread) => (fnv(`fold:${t.question}`) >>> 16) & 1;
const Q = 3;
const prepared = new Map<string, StoredArticle>();
function stored(i: number, wq: boolean): StoredArticle {
  const k = `${i}:${wq}`;
  let s = prepared.get(k);
  if (!s) {
    const t = threads[i]!;
    s = JSON.parse(
      JSON.stringify(
        prepareArticle({
          id: `t${i}`,
          title: t.question,
          body: t.answers.join('\n\n'),
          questions: wq ? t.rephrasings.slice(0, Q) : [],
        }),
      ),
    );
    prepared.set(k, s!);
  }
  return s!;
}
interface Row {
  half: string;
  wq: boolean;
  inKb: boolean;
  correct: boolean;
  rank: number;
  conf: number;
  conf2: number;
  msg: string;
  top: string;
  t: number;
}
function run(opts: object, wq: boolean, leave?: number): Row[] {
  const kept = threads.map((_t, i) => i).filter((i) => leave === undefined || fold(threads[i]!) !== leave);
  const idx = buildKnowledgeIndex(
    kept.map((i) => stored(i, wq)),
    opts,
  );
  const ks = new Set(kept);
  const out: Row[] = [];
  threads.forEach((t, i) => {
    for (const m of wq ? t.rephrasings.slice(Q) : t.rephrasings) {
      const h = idx.search(m, { limit: 3 });
      const rank = h.map((x) => x.articleId).indexOf(`t${i}`) + 1;
      out.push({
        half: half(t),
        wq,
        inKb: ks.has(i),
        correct: rank === 1,
        rank,
        conf: h[0]?.confidence ?? 0,
        conf2: h[1]?.confidence ?? 0,
        msg: m,
        top: h[0]?.articleId ?? '',
        t: i,
      });
    }
  });
  return out;
}
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const pct = (x: number) => (Math.round(x * 1000) / 10).toFixed(1);
const at = (rows: Row[], th: number) => {
  const i = rows.filter((r) => r.inKb),
    o = rows.filter((r) => !r.inKb);
  return {
    right: mean(i.map((r) => +(r.correct && r.conf >= th))),
    wrong: mean(i.map((r) => +(!r.correct && r.conf >= th))),
    out: mean(o.map((r) => +(r.conf >= th))),
  };
};
function choose(rows: Row[]) {
  const c = [...new Set(rows.map((r) => r.conf))].sort((a, b) => a - b);
  const vs = [true, false].map((q) => rows.filter((r) => r.wq === q));
  return c.find((th) => vs.every((v) => at(v, th).out <= 0.15)) ?? 1;
}
export function evaluate(opts: object, fixed?: number) {
  const plain = run(opts, false),
    wq = run(opts, true);
  const ap = [...run(opts, false, 0), ...run(opts, false, 1)],
    aq = [...run(opts, true, 0), ...run(opts, true, 1)];
  const th = fixed ?? choose([...ap, ...aq]);
  const line = (f: (r: Row) => boolean) => {
    const h1 = pct(mean(plain.filter(f).map((r) => +r.correct))),
      h3 = pct(mean(wq.filter(f).map((r) => +r.correct)));
    const a = at(ap.filter(f), th),
      b = at(aq.filter(f), th);
    return `h1 ${h1} h1q ${h3} | ${pct(a.right)}/${pct(a.wrong)}/${pct(a.out)} | q ${pct(b.right)}/${pct(b.wrong)}/${pct(b.out)}`;
  };
  return {
    th,
    tune: line((r) => r.half === 'tune'),
    report: line((r) => r.half === 'report'),
    all: line(() => true),
    rows: { plain, wq, ap, aq },
  };
}
if (process.argv[1]?.endsWith('tune.ts')) {
  const configs = JSON.parse(process.env.CONFIGS ?? '[{}]') as object[];
  for (const c of configs) {
    const e = evaluate(c, process.env.TH ? Number(process.env.TH) : undefined);
    console.log(JSON.stringify(c), 'th', e.th, '\n  tune  ', e.tune, '\n  report', e.report, '\n  all   ', e.all);
  }
}
