// A text's head, normalised: what the readers of a message and the sentence encoder are given.
// NFKC (or NFKD) makes up to 18 characters of one (U+FDFA), so a bound on a text's length before
// normalisation bounds nothing: the text is cut before normalising (bounding the normaliser's own
// work) and again after.

/** The first `n` code points of `s` (the whole of it when shorter). */
export function firstCodePoints(s: string, n: number): string {
  if (s.length <= n) return s;
  let units = 0;
  for (let k = 0; k < n && units < s.length; k++) units += s.codePointAt(units)! > 0xffff ? 2 : 1;
  return s.slice(0, units);
}

/**
 * `text` NFKC-normalised and cut to `n` code points: `head`, and `next`, the character after it
 * ('' when nothing was cut).
 */
export function normalisedHead(text: string, n: number): { head: string; next: string } {
  const normal = firstCodePoints(text, n + 1).normalize('NFKC');
  const head = firstCodePoints(normal, n);
  return { head, next: firstCodePoints(normal.slice(head.length), 1) };
}
