// The quality targets measured in process, the way the chat path answers at the default
// thresholds, without and with the sentence encoder's evidence (every text embedded, as once a
// tenant's content is indexed): `npx tsx test/bench/answers/targets.ts` (bench:answers prints it
// too). ENCODER=0 / ENCODER=1 measures one side only; ARTICLES=1 the support mix and the help desks only.
import { DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/policy/answer-policy.ts';
import type { TextVectors } from '#shared/nlu/encoder/encoder.ts';
import { helpDesks, intentSets, supportMix, type Scenario } from './data.ts';
import { decided, scored } from './fit.ts';
import { buildScenario, encoderMode, observe, scenarioVectors } from './inprocess.ts';
import { calibration, pct, shares, type Outcome } from './score.ts';

const th = { intent: DEFAULT_INTENT_THRESHOLD, article: DEFAULT_ARTICLE_THRESHOLD };
const log = (msg: string) => process.stderr.write(`[targets ${(performance.now() / 1000).toFixed(0)}s] ${msg}\n`);

interface Measured { outcomes: Outcome[]; top1: number }

function measure(s: Scenario, encoded?: TextVectors): Measured {
  const observed = observe(buildScenario(s, encoded), s.messages, encoded);
  const outcomes = decided(scored(observed), th);
  const intents = observed.filter((o) => 'intent' in o.message.expect);
  return { outcomes, top1: intents.filter((o) => o.intentRight).length / (intents.length || 1) };
}

const ece = (o: Outcome[]) => calibration(o.filter((x) => x.answered).map((x) => ({ confidence: x.confidence, right: x.right }))).ece;
const fallbackOf = (o: Outcome[], group: Outcome['group']) => {
  const rows = o.filter((x) => x.group === group);
  return rows.filter((x) => !x.answered).length / (rows.length || 1);
};

/** One side of the table: each measure's figure, and each set's calibration error. */
async function side(encoded?: TextVectors): Promise<{ figures: Record<string, string>; ece: Record<string, number> }> {
  const figures: Record<string, string> = {};
  const errors: Record<string, number> = {};
  // ARTICLES=1: only the tenants with articles (the intent sets do not change with the article model).
  for (const s of process.env.ARTICLES === '1' ? [] : intentSets()) {
    log(`${s.name}${encoded ? ' (encoder)' : ''}`);
    const m = measure(s, encoded);
    const sh = shares(m.outcomes);
    errors[s.name] = ece(m.outcomes);
    if (s.name === 'CLINC150') figures[s.name] = `${pct(sh.intent)} in scope, oos recall ${pct(sh.fallback)}`;
    else figures[s.name] = `${pct(sh.intent)} right, ${pct(fallbackOf(m.outcomes, 'intent'))} fallback, ${pct(m.top1)} at threshold 0`;
  }
  log(`support mix${encoded ? ' (encoder)' : ''}`);
  const mix = measure(supportMix(), encoded).outcomes;
  const sm = shares(mix);
  figures['support mix'] = `mean ${pct(sm.mean)} (intent ${pct(sm.intent)}, article ${pct(sm.article)}, fallback ${pct(sm.fallback)})`;
  errors['support mix'] = ece(mix);
  log(`help desks${encoded ? ' (encoder)' : ''}`);
  const held = helpDesks().flatMap((s) => measure(s, encoded).outcomes.filter((o) => o.heldOut));
  const hd = shares(held);
  figures['help desks, all held out'] = `${pct(hd.right)} right (intent ${pct(hd.intent)}, article ${pct(hd.article)}, fallback ${pct(hd.fallback)})`;
  errors['help desks, all held out'] = ece(held);
  return { figures, ece: errors };
}

const TARGETS: Record<string, string> = {
  'BANKING77 full': '>= 91 %',
  'BANKING77 10 phrases an intent': '>= 72 %, <= 12 % fallback (>= 80 % at threshold 0)',
  CLINC150: 'in scope >= 91 %, oos recall >= 90 %',
  'support mix': 'mean >= 85 %, every group >= 78 %',
  'help desks, all held out': '>= 75 % right',
};

/** Prints the table and returns it. */
export async function targetTable() {
  const scenarios = [...(process.env.ARTICLES === '1' ? [] : intentSets()), supportMix(), ...helpDesks()];
  const encoded = encoderMode === '0' ? undefined : await scenarioVectors(scenarios);
  const without = encoderMode === '1' ? null : await side();
  const withEncoder = encoded ? await side(encoded) : null;
  const rows = Object.keys(TARGETS).filter((m) => (without ?? withEncoder)!.figures[m] !== undefined).map((measure) => ({
    measure, 'without encoder': without?.figures[measure] ?? '', 'with encoder': withEncoder?.figures[measure] ?? '', target: TARGETS[measure]!,
  }));
  const sets = Object.keys((without ?? withEncoder)!.ece);
  rows.push({
    measure: 'calibration error (ECE of answers given)',
    'without encoder': without ? sets.map((k) => without.ece[k]!.toFixed(3)).join(' / ') : '',
    'with encoder': withEncoder ? sets.map((k) => withEncoder.ece[k]!.toFixed(3)).join(' / ') : '',
    target: '<= 0.08 on every set',
  });
  console.log(`in process at the default thresholds ${th.intent} / ${th.article}; ECE per set: ${sets.join(' / ')}`);
  console.table(rows);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await targetTable();
