// The part of a customer's message that the assistant reads. Every step after this one (the word
// readers, the typo search, the entity patterns, the sentence encoder) costs time in the length of
// what it is given, and a message's length is counted before normalisation: one character may
// become up to 18 (U+FDFA under NFKC/NFKD), so 2,000 of them became 36,000 and seconds of CPU. The
// message is normalised, then cut, so that what is read has a fixed bound whatever was sent. The
// message itself is stored and shown as sent.
import { normalisedHead } from '../encoder/normalised.ts';

/** The assistant reads at most this many characters (code points) of a message, after NFKC normalisation. */
export const MESSAGE_READ_CHARS = 500;

/** A word cut by the bound is dropped when a space comes this close before it (longer words are cut). */
const WORD_TAIL = 40;

/**
 * What the assistant reads of `message`: NFKC-normalised (compatibility forms read as their plain
 * letters and digits: "ｏｒｄｅｒ" as "order", "ﬁ" as "fi") and cut to MESSAGE_READ_CHARS code
 * points, at the last space when the cut falls inside a word.
 */
export function messageToRead(message: string): string {
  const { head, next } = normalisedHead(message, MESSAGE_READ_CHARS);
  if (!next) return head;
  // Where the next character is not a space the cut fell inside a word: the word's piece goes.
  if (/\s/u.test(next)) return head.trimEnd();
  for (let i = head.length - 1; i >= 0 && i >= head.length - WORD_TAIL; i--) {
    if (/\s/u.test(head[i]!)) return head.slice(0, i).trimEnd();
  }
  return head;
}
