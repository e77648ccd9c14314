// Learning from the team: `npm run bench:teach`. Everything goes through the API of a local runtime
// started in this process (tenants, intents, POST /admin/nlu/parse for each message as the next chat
// message would be answered, POST /admin/nlu/examples for each taught example), with 8 requests in
// flight at a time.
//
// BANKING77 (../shared/datasets/banking77/train.csv), on each of five splits: a stratified fifth of the training set is the
// validation part, never taught nor streamed. Each intent starts from 10 of the other phrases; the
// rest are streamed as customer traffic in batches of 400, and like an agent reading conversations,
// every message answered with the wrong intent is taught to the right one, up to 5 per intent.
// Beside it, other tenants start from the same phrases and are each taught the same number of random
// traffic messages per intent (RANDOM_DRAWS draws, 3 by default; their mean is the random figure).
// Accuracy is top-1 on the validation part (the tenants' threshold is 0, so every message gets an
// intent, as `npm run bench:nlu` measures it).
// CLINC150 (../shared/datasets/clinc150): a tenant with the 150 intents of `train` and the default
// settings is taught the 100 messages of `oos_train` as `none`; out-of-scope recall
// (`oos_val` answered with the fallback) and in-scope accuracy (`val` answered with the right intent)
// before and after.
// The sentence encoder: by default the runtime's event pipeline embeds the intents' phrases, the
// taught examples and the none examples as it does in AWS, and each measurement waits until the
// index queue is empty and no intent is indexing (ENCODER=0: words only, the pipeline off).
// SPLITS=n runs the first n BANKING77 splits only, SEEDS=142,242 those splits (embedding every
// message makes a split slow: about 9 minutes on a loaded 2-core machine, CLINC150's part as long).
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/policy/answer-policy.ts';
import { rng } from '#shared/nlu/intents/classifier.ts';
import { apiCaller } from './kb/engines.ts';
import {
  loadBanking77,
  loadClinc150,
  perLabel,
  repoRoot,
  shuffle,
  stratifiedSplit,
  toIntents,
  type Example,
} from './nlu/data.ts';

process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';

const PARALLEL = 8;
const SEED_PHRASES = 10;
const TEACH_PER_INTENT = 5;
const BATCH = 400;
// Five splits: one split's figures swing by a point or two with the messages it happens to stream
// (in process: taught minus random +0.1 points on split 42, +1.4 to +3.6 on five others).
const SEEDS = process.env.SEEDS
  ? process.env.SEEDS.split(',').map(Number)
  : [42, 142, 242, 342, 442].slice(0, Number(process.env.SPLITS ?? 5));
const ENCODER = process.env.ENCODER !== '0';
const RANDOM_DRAWS = Number(process.env.RANDOM_DRAWS ?? 3);

const log = (msg: string) => process.stderr.write(`[bench:teach ${(performance.now() / 1000).toFixed(0)}s] ${msg}\n`);

async function pool<T, R>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

const { startLocalRuntime } = await import('../../local/runtime.ts');
const rt = await startLocalRuntime({ tableName: 'bench-teach', stream: ENCODER });
const admin = (path: string) => `/api/v1/admin${path}`;
let calls = 0;
const api = apiCaller(rt.url);
const call = (token: string, method: string, path: string, body?: unknown) => {
  calls++;
  return api(method, admin(path), token, body);
};

/** With the encoder: until the stream has handed every write to the indexer, the queue is empty and no intent is indexing. */
async function indexed(token: string) {
  if (!ENCODER) return;
  let quiet = 0;
  while (quiet < 3) {
    await new Promise((r) => setTimeout(r, 250));
    await rt.indexQueue.idle();
    const items = (await call(token, 'GET', '/intents')).items as Array<{ indexing?: boolean }>;
    quiet = rt.indexQueue.size() === 0 && items.every((i) => !i.indexing) ? quiet + 1 : 0;
  }
}

let tenants = 0;
/** A tenant with exactly these intents (the starter set deleted) and these settings. */
async function tenantWith(
  intents: Array<{ name: string; trainingPhrases: string[] }>,
  config: Record<string, unknown>,
) {
  const token = await rt.idp.token({ sub: `bench-teach-${process.pid}-${tenants++}` });
  await call(token, 'POST', '/auth/onboard', { tenantName: 'Teach' });
  const starters = (await call(token, 'GET', '/intents')).items as Array<{ id: string }>;
  await pool(starters, PARALLEL, (i) => call(token, 'DELETE', `/intents/${i.id}`));
  await call(token, 'PUT', '/settings', { config });
  const created = await pool(intents, PARALLEL, (i) =>
    call(token, 'POST', '/intents', { ...i, response: `About ${i.name}.` }),
  );
  await indexed(token);
  return { token, ids: new Map(created.map((c: { name: string; id: string }) => [c.name, c.id])) };
}

const parseAll = (token: string, texts: readonly string[]) =>
  pool(
    texts,
    PARALLEL,
    async (message) => (await call(token, 'POST', '/nlu/parse', { message })).intentDetected as string,
  );

const accuracy = async (token: string, xs: readonly Example[]) => {
  const got = await parseAll(
    token,
    xs.map((x) => x[0]),
  );
  return got.filter((g, i) => g === xs[i]![1]).length / xs.length;
};

/** Teaches examples, one intent's at a time (they write the same item), several intents at once. */
async function teach(token: string, ids: Map<string, string>, examples: readonly Example[]) {
  const byIntent = new Map<string, string[]>();
  for (const [text, label] of examples) byIntent.set(label, [...(byIntent.get(label) ?? []), text]);
  await pool([...byIntent], PARALLEL, async ([label, texts]) => {
    for (const message of texts)
      await call(token, 'POST', '/nlu/examples', { message, target: { intentId: ids.get(label) } });
  });
  await indexed(token);
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

interface BankingRun {
  seed: number;
  intents: number;
  seedPhrases: number;
  validation: number;
  streamed: number;
  taught: number;
  accuracyBefore: number;
  accuracyAfterTeaching: number;
  accuracyAfterRandom: number;
  randomDraws: number[];
}

/** One split of BANKING77: two tenants from the same phrases, one taught its misses as an agent would, one as many random messages. */
async function banking77(all: Example[], splitSeed: number): Promise<BankingRun> {
  const [rest, validation] = stratifiedSplit(all, 0.2, splitSeed);
  const seed = perLabel(rest, SEED_PHRASES, splitSeed);
  const seedSet = new Set(seed.map((x) => x[0]));
  const traffic = shuffle(
    rest.filter((x) => !seedSet.has(x[0])),
    rng(splitSeed + 1),
  );
  const intents = toIntents(seed);
  log(
    `BANKING77 split ${splitSeed}: ${intents.length} intents x ${SEED_PHRASES} phrases, ${traffic.length} traffic messages, ${validation.length} to validate`,
  );
  const agent = await tenantWith(intents, { nlu: { confidenceThreshold: 0 } });
  const before = await accuracy(agent.token, validation);
  log(`before: ${pct(before)}`);

  const taught = new Map<string, number>();
  let streamed = 0;
  for (let i = 0; i < traffic.length && intents.some((x) => (taught.get(x.name) ?? 0) < TEACH_PER_INTENT); i += BATCH) {
    const batch = traffic.slice(i, i + BATCH).filter((x) => (taught.get(x[1]) ?? 0) < TEACH_PER_INTENT);
    const got = await parseAll(
      agent.token,
      batch.map((x) => x[0]),
    );
    streamed += batch.length;
    const toTeach: Example[] = [];
    batch.forEach((x, j) => {
      if (got[j] === x[1] || (taught.get(x[1]) ?? 0) >= TEACH_PER_INTENT) return;
      taught.set(x[1], (taught.get(x[1]) ?? 0) + 1);
      toTeach.push(x);
    });
    await teach(agent.token, agent.ids, toTeach);
    log(`streamed ${streamed}, taught ${[...taught.values()].reduce((a, b) => a + b, 0)}`);
  }
  const afterAgent = await accuracy(agent.token, validation);
  // The random tenants: as many traffic messages per intent, drawn at random, RANDOM_DRAWS times (one
  // draw's figure moves by a point or more with the messages it happens to pick).
  const randomDraws: number[] = [];
  for (let d = 0; d < RANDOM_DRAWS; d++) {
    const rand = rng(splitSeed + 2 + 1000 * d);
    const random = await tenantWith(intents, { nlu: { confidenceThreshold: 0 } });
    await teach(
      random.token,
      random.ids,
      intents.flatMap((x) =>
        shuffle(
          traffic.filter((t) => t[1] === x.name),
          rand,
        ).slice(0, taught.get(x.name) ?? 0),
      ),
    );
    randomDraws.push(await accuracy(random.token, validation));
  }
  const afterRandom = randomDraws.reduce((a, b) => a + b, 0) / randomDraws.length;
  log(`after: taught ${pct(afterAgent)}, random ${pct(afterRandom)} (draws ${randomDraws.map(pct).join(', ')})`);
  return {
    seed: splitSeed,
    intents: intents.length,
    seedPhrases: SEED_PHRASES,
    validation: validation.length,
    streamed,
    taught: [...taught.values()].reduce((a, b) => a + b, 0),
    accuracyBefore: before,
    accuracyAfterTeaching: afterAgent,
    accuracyAfterRandom: afterRandom,
    randomDraws,
  };
}

const started = performance.now();
const results: Record<string, unknown> = { startedAt: new Date().toISOString() };
try {
  // ---- BANKING77 -------------------------------------------------------------------------------
  // Intent names are ^[a-z][a-z0-9_]*$: a few BANKING77 labels have capitals.
  const all = loadBanking77().map(([text, label]): Example => [text, label.toLowerCase().replace(/[^a-z0-9_]/g, '_')]);
  const runs: BankingRun[] = [];
  for (const splitSeed of SEEDS) runs.push(await banking77(all, splitSeed));
  const meanOf = (f: (r: BankingRun) => number) => runs.reduce((s, r) => s + f(r), 0) / runs.length;
  const m = {
    accuracyBefore: meanOf((r) => r.accuracyBefore),
    accuracyAfterTeaching: meanOf((r) => r.accuracyAfterTeaching),
    accuracyAfterRandom: meanOf((r) => r.accuracyAfterRandom),
  };
  results.banking77 = { runs, mean: m };

  // ---- CLINC150 --------------------------------------------------------------------------------
  const clinc = loadClinc150();
  const clincIntents = toIntents(clinc.train);
  log(`CLINC150: ${clincIntents.length} intents, ${clinc.train.length} phrases`);
  const t = await tenantWith(clincIntents, {});
  const measure = async () => {
    const inScope = await accuracy(t.token, clinc.val);
    const oos = await parseAll(
      t.token,
      clinc.oos_val.map((x) => x[0]),
    );
    return { inScopeAccuracy: inScope, oosRecall: oos.filter((g) => g === 'fallback').length / oos.length };
  };
  const clincBefore = await measure();
  log(`before: in-scope ${pct(clincBefore.inScopeAccuracy)}, oos recall ${pct(clincBefore.oosRecall)}`);
  await pool(clinc.oos_train.slice(0, 100), 4, ([message]) =>
    call(t.token, 'POST', '/nlu/examples', { message, target: { none: true } }),
  );
  await indexed(t.token);
  const clincAfter = await measure();
  results.clinc150 = { intents: clincIntents.length, none: 100, before: clincBefore, after: clincAfter };
  log(`after: in-scope ${pct(clincAfter.inScopeAccuracy)}, oos recall ${pct(clincAfter.oosRecall)}`);

  results.encoder = ENCODER;
  results.apiCalls = calls;
  results.elapsedS = (performance.now() - started) / 1000;
  const r0 = runs[0]!;
  console.log(
    [
      `${ENCODER ? 'With the sentence encoder (content embedded by the event pipeline)' : 'Words only (ENCODER=0)'}.`,
      `BANKING77, ${r0.intents} intents from ${SEED_PHRASES} phrases each, ${runs.length} splits (seeds ${SEEDS.join(', ')}); accuracy on ${r0.validation} validation messages each:`,
      ...runs.map(
        (r) =>
          `  split ${r.seed}: ${r.streamed} traffic messages streamed, ${r.taught} taught (at most ${TEACH_PER_INTENT} per intent); before ${pct(r.accuracyBefore)}, after teaching the misses ${pct(r.accuracyAfterTeaching)}, after as many random phrases ${pct(r.accuracyAfterRandom)} (mean of ${r.randomDraws.map(pct).join(', ')})`,
      ),
      `  mean: before ${pct(m.accuracyBefore)}, after teaching the misses ${pct(m.accuracyAfterTeaching)}, after as many random phrases ${pct(m.accuracyAfterRandom)}`,
      `  target (on the mean): >= 78 % and ahead of random: ${m.accuracyAfterTeaching >= 0.78 && m.accuracyAfterTeaching > m.accuracyAfterRandom ? 'met' : 'NOT met'}`,
      `CLINC150, ${clincIntents.length} intents, 100 oos_train messages taught as none (default threshold ${DEFAULT_INTENT_THRESHOLD})`,
      `  out-of-scope recall on oos_val: ${pct(clincBefore.oosRecall)} -> ${pct(clincAfter.oosRecall)}; in-scope accuracy on val: ${pct(clincBefore.inScopeAccuracy)} -> ${pct(clincAfter.inScopeAccuracy)}`,
      `  target: recall +3 points, accuracy -0.5 points at most: ${clincAfter.oosRecall - clincBefore.oosRecall >= 0.03 - 1e-9 && clincBefore.inScopeAccuracy - clincAfter.inScopeAccuracy <= 0.005 ? 'met' : 'NOT met'}`,
      `${calls} API calls in ${(results.elapsedS as number).toFixed(0)} s`,
    ].join('\n'),
  );
  const outDir = resolve(repoRoot, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(resolve(outDir, 'teach.json'), JSON.stringify(results, null, 2));
  console.log('wrote bench-results/teach.json');
} finally {
  await rt.stop();
}
