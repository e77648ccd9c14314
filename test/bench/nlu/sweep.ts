// Scratch sweep: accuracy on CLINC val and BANKING77 carved val for option sets given as JSON lines.
import { trainClassifier, wordVectors } from '#shared/nlu/index.ts';
import { loadBanking77, loadClinc150, stratifiedSplit, toIntents, perLabel } from './data.ts';
const VEC = wordVectors();
const d = loadClinc150();
const [btr, bva] = stratifiedSplit(loadBanking77(), 0.2, 20);
const which = process.env.DS ?? 'cb';
for (const line of process.argv.slice(2)) {
  const opts = JSON.parse(line);
  const out: Record<string, string> = {};
  const run = (name: string, train: [string, string][], val: [string, string][]) => {
    trainClassifier(toIntents(train).slice(0, 5), opts, VEC); // warm the JIT
    const t = performance.now();
    const c = trainClassifier(toIntents(train), opts, VEC);
    out[`${name}ms`] = (performance.now() - t).toFixed(0);
    let ok = 0;
    for (const [text, label] of val) if (c.classify(text, 1)[0]!.intent === label) ok++;
    out[name] = ((100 * ok) / val.length).toFixed(2);
  };
  if (which.includes('c')) run('clinc', [...d.train, ...d.oos_train], d.val);
  if (which.includes('b')) run('bank', btr, bva);
  if (which.includes('f')) run('bank10', perLabel(btr, 10, 10), bva);
  console.log(line, JSON.stringify(out));
}
