// A message read against the knowledge index's vocabulary: its terms with their idf weight and
// the index's terms each one matches, with a strength: itself, a vocabulary word that extends it,
// a stem that differs in its last letters, a one-typo neighbour, a learned synonym, a lexicon
// equivalent, a split compound, a lexicon phrase read as one word.
import { joinContractions, LEXICON, lexiconPhraseAt, phraseGroups, wordGroups } from './lexicon.ts';
import type { ScoreWeights } from './scoring.ts';
import type { TermIndex } from './terms.ts';
import { MAX_QUERY_CHARS, STOP, stem, withinOneEdit, words } from './words.ts';

const MAX_QUERY_TERMS = 32;

export interface QueryTerm {
  weight: number;
  term: number; // the message word's own term, -1 when the knowledge base does not have it
  alts: Array<[term: number, strength: number]>;
}

/** The message's terms, at most MAX_QUERY_TERMS, each once. */
export function queryReader(
  index: TermIndex,
  synonyms: ReadonlyMap<number, Array<[number, number]>>,
  w: ScoreWeights,
): (query: string) => QueryTerm[] {
  const { termText, termIdf, unseenIdf, termOfWord, termOfPhrase } = index;

  // Terms by text, for prefix matches by binary search, and by length, for typo neighbours.
  const sorted = termText
    .map((_, i) => i)
    .filter((i) => !termText[i]!.startsWith('p:'))
    .sort((x, y) => (termText[x]! < termText[y]! ? -1 : 1));
  const byLength = new Map<number, number[]>();
  termText.forEach((t, i) => {
    if (t.startsWith('p:')) return;
    const list = byLength.get(t.length) ?? [];
    list.push(i);
    byLength.set(t.length, list);
  });

  const prefixAlts = (st: string, out: Array<[number, number]>) => {
    if (st.length < 3) return;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (termText[sorted[mid]!]! < st) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < sorted.length && out.length < 16; k++) {
      const t = termText[sorted[k]!]!;
      if (!t.startsWith(st)) break;
      if (t !== st) out.push([sorted[k]!, w.prefix]);
    }
  };

  // Stems that differ only in their last letters, which the stemmer leaves apart ("privaci" /
  // "privat", "criterion" / "criteria"): at least 5 letters and all but the last letter of the
  // shorter one shared. A vocabulary word that merely extends the message word is prefixAlts'.
  const variantAlts = (st: string, out: Array<[number, number]>) => {
    if (w.variant <= 0 || st.length < 6) return;
    const p = st.slice(0, Math.max(5, st.length - 2));
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (termText[sorted[mid]!]! < p) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo, found = 0; k < sorted.length && found < 8; k++) {
      const t = termText[sorted[k]!]!;
      if (!t.startsWith(p)) break;
      if (t.startsWith(st)) continue;
      let c = p.length;
      while (c < t.length && c < st.length && t[c] === st[c]) c++;
      if (c < Math.min(t.length, st.length) - 1) continue;
      out.push([sorted[k]!, w.variant]);
      found++;
    }
  };

  const fuzzyAlts = (st: string, out: Array<[number, number]>) => {
    if (st.length < 5) return;
    for (let len = st.length - 1; len <= st.length + 1; len++) {
      for (const id of byLength.get(len) ?? []) {
        if (withinOneEdit(st, termText[id]!)) out.push([id, w.fuzzy]);
        if (out.length >= 8) return;
      }
    }
  };

  // Everyday equivalents: a group's members as the knowledge base's terms (a phrase as its words).
  const lexiconAlts = (groups: readonly number[] | undefined, self: string, out: Array<[number, number]>) => {
    if (!groups || w.lexicon <= 0) return;
    for (const g of groups) {
      for (const member of LEXICON[g]!.members) {
        if (member.join(' ') === self) continue;
        const id = member.length === 1 ? termOfWord(member[0]!) : termOfPhrase(member.join(' '));
        if (id >= 0 && !out.some(([t]) => t === id)) out.push([id, w.lexicon]);
      }
    }
  };

  const analyse = (query: string): QueryTerm[] => {
    const ws =
      w.lexicon > 0 ? joinContractions(words(query.slice(0, MAX_QUERY_CHARS))) : words(query.slice(0, MAX_QUERY_CHARS));
    const seen = new Set<string>();
    // A word read once reads the same again: a repeated word costs one lookup, not another typo search.
    const read = new Set<string>();
    const out: QueryTerm[] = [];
    const push = (key: string, weight: number, alts: Array<[number, number]>, term = -1) => {
      if (seen.has(key) || out.length >= MAX_QUERY_TERMS) return;
      seen.add(key);
      out.push({ weight, term, alts });
    };
    // Nothing is added past MAX_QUERY_TERMS, so the rest of a long message is not read.
    for (let i = 0; i < ws.length && out.length < MAX_QUERY_TERMS; i++) {
      const word = ws[i]!;
      // A phrase of the lexicon ("send it back", "gift card") reads as one word.
      const phrase = w.lexicon > 0 ? lexiconPhraseAt(ws, i, true) : null;
      if (phrase) {
        // The phrase itself, its words at half strength, and its group's other members.
        const own = termOfPhrase(phrase.key);
        const alts: Array<[number, number]> = own >= 0 ? [[own, 1]] : [];
        for (const pw of phrase.key.split(' ')) {
          const id = termOfWord(pw);
          if (id >= 0 && !alts.some(([t]) => t === id)) alts.push([id, 0.5]);
        }
        lexiconAlts(phraseGroups.get(phrase.key), phrase.key, alts);
        if (alts.length > 0) {
          push(`p:${phrase.key}`, Math.max(...alts.map(([t]) => termIdf[t]!)), alts);
          i += phrase.span - 1;
          continue;
        }
      }
      // "git hub" -> "github", "back up" -> "backup" when the knowledge base writes it as one word.
      const next = ws[i + 1];
      if (next !== undefined) {
        const joined = termOfWord(word + next);
        if (joined >= 0 && (termOfWord(word) < 0 || termOfWord(next) < 0)) {
          push(termText[joined]!, termIdf[joined]!, [[joined, 1]]);
          i++;
          continue;
        }
      }
      if (read.has(word)) continue;
      read.add(word);
      const id = termOfWord(word);
      if (id === -1) continue;
      const st = id >= 0 ? termText[id]! : stem(word);
      if (STOP.has(st)) continue;
      const alts: Array<[number, number]> = id >= 0 ? [[id, 1]] : [];
      prefixAlts(st, alts);
      variantAlts(st, alts);
      lexiconAlts(wordGroups.get(word) ?? wordGroups.get(st), word, alts);
      if (id >= 0) {
        for (const [t, strength] of synonyms.get(id) ?? []) alts.push([t, strength]);
        push(st, termIdf[id]!, alts, id);
        continue;
      }
      // An unseen word: one made of two known words ("autosave"), a typo, or really unknown.
      let split = false;
      for (let k = 3; k <= word.length - 3 && !split; k++) {
        const l = termOfWord(word.slice(0, k));
        const r = termOfWord(word.slice(k));
        if (l >= 0 && r >= 0) {
          push(termText[l]!, termIdf[l]!, [[l, 1]]);
          push(termText[r]!, termIdf[r]!, [[r, 1]]);
          split = true;
        }
      }
      if (split) continue;
      fuzzyAlts(st, alts);
      push(st, alts.length > 0 ? Math.max(...alts.map(([t]) => termIdf[t]!)) : unseenIdf, alts);
    }
    return out;
  };

  return analyse;
}
