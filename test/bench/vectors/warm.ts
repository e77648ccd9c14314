// Embeds the benchmarks' dataset texts into the vector cache (test/bench/vectors/cache.ts) ahead
// of the benchmarks: `npx tsx test/bench/vectors/warm.ts` (BANKING77 and CLINC150 take about
// 20 minutes of one core the first time; run it in the background).
import { loadStackFaq } from '../kb/data.ts';
import { loadBanking77, loadClinc150 } from '../nlu/data.ts';
import { helpDesks } from '../answers/data.ts';
import { cachedVectors } from './cache.ts';

const log = (msg: string) => process.stderr.write(`[vectors ${(performance.now() / 1000).toFixed(0)}s] ${msg}\n`);
const which = process.argv.slice(2);
const sets: Record<string, () => string[]> = {
  desks: () =>
    helpDesks().flatMap((s) => [
      ...s.intents.flatMap((i) => i.trainingPhrases),
      ...s.articles.flatMap((a) => [a.title, ...(a.questions ?? [])]),
      ...s.messages.map((m) => m.text),
    ]),
  stackfaq: () => loadStackFaq().flatMap((t) => [t.question, ...t.rephrasings]),
  banking77: () => loadBanking77().map(([text]) => text),
  clinc150: () => {
    const c = loadClinc150();
    return [...c.train, ...c.val, ...c.oos_train, ...c.oos_val].map(([text]) => text);
  },
};
for (const name of which.length > 0 ? which : Object.keys(sets)) {
  const texts = sets[name]!();
  log(`${name}: ${texts.length} texts`);
  await cachedVectors(texts, log);
}
log('done');
