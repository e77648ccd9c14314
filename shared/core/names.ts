// The rule for names that one person writes and others are shown (display names, tenant,
// integration and widget names, labels): no control characters, no bidirectional controls that
// could reorder what the reader sees, and something visible.

const CONTROL = /\p{Cc}/u;
/** Embeddings and overrides (U+202A–202E), isolates (U+2066–2069), LRM/RLM and the Arabic letter mark. */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/** Format characters, separators and marks, and the fillers that render as nothing. */
const INVISIBLE = /[\p{Cf}\p{Z}\p{M}\u115F\u1160\u3164\uFFA0\u2800]/gu;

/** Why `s` may not be shown to others as a name, or null when it may. */
export function nameProblem(s: string): string | null {
  if (CONTROL.test(s)) return 'must not contain control characters';
  if (BIDI.test(s)) return 'must not contain bidirectional control characters';
  if (s.replace(INVISIBLE, '') === '') return 'must contain visible characters';
  return null;
}
