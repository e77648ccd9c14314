// Word pairs a tenant's own titles and questions swap, learned when the index is built.
import type { ScoreWeights } from './scoring.ts';

/**
 * Word pairs that customers swap: two statements of one article (its title, its questions) that
 * differ by a few words pair those words up ("remove my fb account" / "delete my facebook
 * account"). A pair counts once per article. It holds across the knowledge base (`synonyms`)
 * when at least `synonymArticles` articles show it, so that one odd question teaches nothing
 * about other articles; within the article that shows it (`local`: term -> [article, term]) it
 * matches at `localSynonym`, a fraction of a synonym.
 */
export function learnSynonyms(
  statements: ReadonlyArray<ReadonlyArray<readonly number[]>>,
  w: ScoreWeights,
): { synonyms: Map<number, Array<[number, number]>>; local: Map<number, Array<[number, number]>> } {
  const seen = new Map<string, Set<number>>();
  if (w.synonymSpan <= 0) return { synonyms: new Map(), local: new Map() };
  statements.forEach((sts, a) => {
    for (let x = 0; x < sts.length; x++) {
      for (let y = x + 1; y < sts.length; y++) {
        const sx = new Set(sts[x]);
        const sy = new Set(sts[y]);
        const dx = sts[x]!.filter((t) => !sy.has(t));
        const dy = sts[y]!.filter((t) => !sx.has(t));
        if (dx.length === 0 || dy.length === 0 || dx.length > w.synonymSpan || dy.length > w.synonymSpan) continue;
        for (const p of dx)
          for (const q of dy) {
            for (const key of [`${p} ${q}`, `${q} ${p}`]) {
              const arts = seen.get(key) ?? new Set<number>();
              arts.add(a);
              seen.set(key, arts);
            }
          }
      }
    }
  });
  const synonyms = new Map<number, Array<[number, number]>>();
  const local = new Map<number, Array<[number, number]>>();
  for (const [key, arts] of seen) {
    const [p, q] = key.split(' ').map(Number) as [number, number];
    if (arts.size >= w.synonymArticles) {
      const list = synonyms.get(p) ?? [];
      list.push([q, w.synonym]);
      synonyms.set(p, list);
    } else if (w.localSynonym > 0) {
      const list = local.get(p) ?? [];
      for (const a of arts) list.push([a, q]);
      local.set(p, list);
    }
  }
  return { synonyms, local };
}
