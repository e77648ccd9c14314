// Words of messages and articles: lower-cased runs of letters and digits, stop words, stems, and
// the one-typo test of the index's fuzzy matches.
import { stemmer } from 'stemmer';

// Function words and the filler of customer messages: they say nothing about which article answers.
export const STOP = new Set(
  (
    'a about above after again against all also am an and any anyone anything are as at be been being below between both but by ' +
    'can cannot could did do does doing done down during each either else even ever every few for from further get gets getting got ' +
    'had has have having he hello her here hers herself hi him himself his how however i if in into is it its itself just let lets ' +
    'like me might mine more most much must my myself need needs no nor not now of off on once one only or other others otherwise our ' +
    'ours out over own please possible possibly really same she should so some somehow something still such than thank thanks that ' +
    'the their theirs them themselves then there these they thing things this those through thus to too under until up us very want ' +
    'wanted wants was way ways we were what whatever when whenever where whether which while who whom whose why will with within ' +
    'without would yes yet you your yours yourself yourselves ' +
    // pieces of contractions once the apostrophe is gone
    'd ll m re s t ve don doesn didn isn aren wasn weren haven hasn hadn won wouldn shouldn couldn can cant dont doesnt didnt isnt ' +
    'im ive id youre'
  ).split(' '),
);

const MAX_WORD = 40;
/** A message is read up to this many characters. */
export const MAX_QUERY_CHARS = 2_000;

function keep(w: string, out: string[]) {
  if (w.length <= MAX_WORD && (w.length > 1 || (w >= '0' && w <= '9'))) out.push(w);
}

/** Lower-cased runs of letters and digits, accents stripped; a one-letter prefix joined by a hyphen stays on its word ("e-mail" -> "email"). */
export function words(text: string): string[] {
  const s = text.toLowerCase();
  const out: string[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included
  if (/[^\x00-\x7f]/.test(s)) {
    const plain = s
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/(?<![\p{L}\p{N}])(\p{L})-(?=\p{L})/gu, '$1');
    for (const m of plain.matchAll(/[\p{L}\p{N}]+/gu)) keep(m[0], out);
    return out;
  }
  // Plain ASCII, nearly all text: a scan is several times faster than a global regex here.
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (alnum && start < 0) start = i;
    else if (!alnum && start >= 0) {
      // "e-mail", "x-ray": a one-letter prefix joined by a hyphen is part of the word.
      if (i - start === 1 && c === 45 && s.charCodeAt(i + 1) >= 97 && s.charCodeAt(i + 1) <= 122) continue;
      keep(s.slice(start, i).replace('-', ''), out);
      start = -1;
    }
  }
  return out;
}

// One stem per distinct word; bounded so that hostile traffic cannot grow it without end.
const stems = new Map<string, string>();
export function stem(w: string): string {
  let s = stems.get(w);
  if (s === undefined) {
    if (stems.size > 50_000) stems.clear();
    s = stemmer(w);
    stems.set(w, s);
  }
  return s;
}

/** Whether a from index ai and b from index bi are the same text (compared in place: the typo search runs it over a vocabulary). */
function sameFrom(a: string, ai: number, b: string, bi: number): boolean {
  if (a.length - ai !== b.length - bi) return false;
  for (; ai < a.length; ai++, bi++) if (a.charCodeAt(ai) !== b.charCodeAt(bi)) return false;
  return true;
}

/** Edit distance of a and b when it is at most 1 (adjacent swaps count 1), else 2. */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (i >= a.length) return true;
    if (sameFrom(a, i + 1, b, i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && sameFrom(a, i + 2, b, i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return sameFrom(long, i + 1, short, i);
}
