// The part of a customer's message that the assistant reads. Every step after this one (the word
// readers, the typo search, the entity patterns, the sentence encoder) costs time in the length of
// what it is given, and a message's length is counted before normalisation: one character may
// become up to 18 (U+FDFA under NFKC/NFKD), so 2,000 of them became 36,000 and seconds of CPU. The
// message is normalised, then cut, so that what is read has a fixed bound whatever was sent. The
// message itself is stored and shown as sent.

/** The assistant reads at most this many characters (code points) of a message, after NFKC normalisation. */
export const MESSAGE_READ_CHARS = 500;

/** A word cut by the bound is dropped when a space comes this close before it (longer words are cut). */
const WORD_TAIL = 40;

/** The first `n` code points of `s` (the whole of it when shorter). */
function firstCodePoints(s: string, n: number): string {
  if (s.length <= n) return s;
  let units = 0;
  for (let k = 0; k < n && units < s.length; k++) units += s.codePointAt(units)! > 0xffff ? 2 : 1;
  return s.slice(0, units);
}

/**
 * What the assistant reads of `message`: NFKC-normalised (compatibility forms read as their plain
 * letters and digits: "ｏｒｄｅｒ" as "order", "ﬁ" as "fi") and cut to MESSAGE_READ_CHARS code
 * points, at the last space when the cut falls inside a word.
 */
export function messageToRead(message: string): string {
  // Cut before normalising too, so the normaliser's own work is bounded (at most 18 times the bound).
  const head = firstCodePoints(message, MESSAGE_READ_CHARS + 1).normalize('NFKC');
  const cut = firstCodePoints(head, MESSAGE_READ_CHARS);
  if (cut.length === head.length) return cut;
  // The cut fell inside a word when the next character is not a space: drop the word's piece.
  if (/\s/u.test(head[cut.length]!)) return cut.trimEnd();
  for (let i = cut.length - 1; i >= 0 && i >= cut.length - WORD_TAIL; i--) {
    if (/\s/u.test(cut[i]!)) return cut.slice(0, i).trimEnd();
  }
  return cut;
}
